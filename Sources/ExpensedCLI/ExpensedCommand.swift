import ExpenseCore
import ExpenseServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The `expensed` command line: `serve` (the default), `ledger add|list`, `backup`.
public enum ExpensedCommand {
    /// Runs `expensed` with `arguments` (without the program name) and returns the exit code.
    public static func main(arguments: [String]) async -> Int32 {
        do {
            return try await run(arguments)
        } catch {
            printError("Error: \(error.message)\nUsage: \(HelpText.usage(error.command))\n"
                       + "See 'expensed \(error.command.isEmpty ? "" : error.command + " ")--help' for more information.")
            return 64
        }
    }

    private static func run(_ arguments: [String]) async throws(UsageError) -> Int32 {
        let first = arguments.first
        switch first {
        case "--version"?:
            print("expensed \(ServerConfiguration.version)")
            return 0
        case "-h"?, "--help"?, "help"?:
            print(HelpText.page(""))
            return 0
        case nil:
            return await ServeCommand.run([])
        case "serve"?:
            return await ServeCommand.run(Array(arguments.dropFirst()))
        case "ledger"?:
            return try await ledger(Array(arguments.dropFirst()))
        case "backup"?:
            return try backup(Array(arguments.dropFirst()))
        case let option? where option.hasPrefix("-"):
            return await ServeCommand.run(arguments)  // `expensed --listen …` is `expensed serve --listen …`
        case let other?:
            throw UsageError(message: "unknown subcommand '\(other)'", command: "")
        }
    }

    private static func ledger(_ arguments: [String]) async throws(UsageError) -> Int32 {
        switch arguments.first {
        case "add"?:
            let rest = Array(arguments.dropFirst())
            if wantsHelp(rest) { print(HelpText.page("ledger add")); return 0 }
            let scanner = try ArgumentScanner(rest, command: "ledger add", valued: ["--currency", "--data"], flags: [])
            try scanner.expectAtMost(1, command: "ledger add")
            guard let name = scanner.positionals.first else { throw UsageError(message: "missing NAME", command: "ledger add") }
            let currency = try currencyOption(scanner, command: "ledger add")
            return await withDirectory(scanner.value("--data"), currency: currency) { directory in
                let token = try directory.addLedger(name: name, currency: currency)
                print(token)
            }
        case "list"?:
            let rest = Array(arguments.dropFirst())
            if wantsHelp(rest) { print(HelpText.page("ledger list")); return 0 }
            let scanner = try ArgumentScanner(rest, command: "ledger list", valued: ["--data"], flags: [])
            try scanner.expectAtMost(0, command: "ledger list")
            return await withDirectory(scanner.value("--data"), currency: .usd) { directory in
                for ledger in directory.ledgers() { print("\(ledger.name) \(ledger.currency.code)") }
            }
        case "-h"?, "--help"?:
            print(HelpText.page("ledger"))
            return 0
        case let other?:
            throw UsageError(message: "unknown subcommand 'ledger \(other)'", command: "ledger")
        case nil:
            throw UsageError(message: "missing subcommand (add or list)", command: "ledger")
        }
    }

    private static func backup(_ arguments: [String]) throws(UsageError) -> Int32 {
        if wantsHelp(arguments) { print(HelpText.page("backup")); return 0 }
        let scanner = try ArgumentScanner(arguments, command: "backup", valued: ["--data", "--ledger"], flags: [])
        try scanner.expectAtMost(1, command: "backup")
        guard let ledger = scanner.value("--ledger") else { throw UsageError(message: "missing --ledger NAME", command: "backup") }
        guard let file = scanner.positionals.first else { throw UsageError(message: "missing FILE", command: "backup") }
        do {
            try LedgerDirectory.backup(dataDirectory: dataDirectory(scanner.value("--data")), ledger: ledger, to: file)
            return 0
        } catch {
            printError("Error: \(error)")
            return 1
        }
    }

    // MARK: Shared helpers

    static func wantsHelp(_ arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == "-h" || argument == "--help" { return true }
        }
        return false
    }

    /// `--data`, else `$EXPENSED_DATA`, else `~/.local/share/expensed`.
    static func dataDirectory(_ option: String?) -> String {
        if let option, !option.isEmpty { return option }
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["EXPENSED_DATA"], !data.isEmpty { return data }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/expensed"
    }

    static func currencyOption(_ scanner: ArgumentScanner, command: String) throws(UsageError) -> Currency {
        guard let code = scanner.value("--currency") else { return .usd }
        guard let currency = Currency(code: code) else {
            throw UsageError(message: "'\(code)' is not an active ISO 4217 currency code (such as USD or EUR)", command: command)
        }
        return currency
    }

    private static func withDirectory(_ option: String?, currency: Currency,
                                      _ body: (LedgerDirectory) throws -> Void) async -> Int32 {
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: dataDirectory(option), defaultCurrency: currency)
        } catch {
            printError("Error: \(error)")
            return 1
        }
        var status: Int32 = 0
        do {
            try body(directory)
        } catch {
            printError("Error: \(error)")
            status = 1
        }
        await directory.close()
        return status
    }

    /// Writes a message and a newline to standard error.
    static func printError(_ message: String) {
        var bytes = Array((message + "\n").utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
