import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

/// The `expense` program: parses the command line, opens the local store, runs one command.
package enum ExpenseCLI {
    /// Runs `expense` with the bytes of `rawArguments` (without the program name): an argument that is not
    /// UTF-8 is refused with `invalid_text` (exit 65) before anything else, where Swift's `CommandLine.arguments`
    /// would silently turn its bytes into U+FFFD and store them so.
    package static func main(rawArguments: [[UInt8]], environment: [String: String]) -> Int32 {
        var arguments: [String] = []
        for (index, bytes) in rawArguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                Console().err("Error: invalid_text: argument \(index + 1) ('\(escaped(bytes))') is not UTF-8 text; "
                              + "write it in UTF-8 (such as with iconv)")
                return ExitCode.dataError.rawValue
            }
            arguments.append(text)
        }
        return main(arguments: arguments, environment: environment)
    }

    /// This process's arguments after the program name, as the bytes the kernel passed.
    package static func processArguments() -> [[UInt8]] {
        (1..<Int(max(CommandLine.argc, 1))).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
        }
    }

    /// Printable ASCII as it is, every other byte as `\xHH`, so a message never writes invalid UTF-8 itself.
    static func escaped(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(40).map { byte in
            (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "'")
                ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }.joined()
        return bytes.count > 40 ? shown + "…" : shown
    }

    /// Runs `expense` with `arguments` (without the program name) and returns the process exit code.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        var console = Console()
        // Charts are drawn for a terminal; EXPENSE_CHART=always draws them anyway (demos, `| less -R`).
        if environment["EXPENSE_CHART"] == "always" { console.isTerminal = true }
        let root = ExpenseCommands.root
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser.parse(arguments, root: root)
        } catch {
            console.err(error.report(root: root))
            return ExitCode.usage.rawValue
        }
        switch outcome {
        case .version:
            console.out("expense \(ExpenseCommands.version)\n")
            return ExitCode.success.rawValue
        case .help(let path):
            console.out(HelpFormatter.help(root: root, path: path, footer: ExpenseCommands.footer))
            return ExitCode.success.rawValue
        case .run(let command) where command.path == [ExpenseCommands.completion.name]:
            do {
                console.out(try CompletionScript.script(for: command, root: root))
                return ExitCode.success.rawValue
            } catch {
                console.err(error.report(root: root))
                return ExitCode.usage.rawValue
            }
        case .run(let command) where command.path == [ExpenseCommands.manual.name]:
            console.out(ExpenseCommands.manualPage.render(root: root))
            return ExitCode.success.rawValue
        case .run(let command):
            if let problem = environmentProblem(environment) {
                console.err("Error: \(problem)")
                return ExitCode.usage.rawValue
            }
            let runner = ExpenseRunner(command: command, home: ExpenseHome(environment: environment), console: console,
                                       environment: environment)
            do {
                try runner.run()
                return ExitCode.success.rawValue
            } catch let error as UsageError {
                console.err(error.report(root: root))
                return ExitCode.usage.rawValue
            } catch {
                let (code, lines) = CommandFailure.from(error)
                lines.forEach(console.err)
                return code.rawValue
            }
        }
    }
}

extension ExpenseCLI {
    /// A sentence naming the first environment variable with a value `expense` cannot use, or `nil`. A typo
    /// such as `EXPENSE_STORE=sqlit` must not silently open another cache than the one asked for.
    static func environmentProblem(_ environment: [String: String]) -> String? {
        if let store = environment["EXPENSE_STORE"], ExpenseHome.Backend(rawValue: store) == nil {
            return "EXPENSE_STORE must be 'sqlite' or 'json', not '\(store)'; unset it for the default (sqlite)"
        }
        if let attempts = environment["EXPENSE_SYNC_ATTEMPTS"], !(Int(attempts).map { (1...100).contains($0) } ?? false) {
            return "EXPENSE_SYNC_ATTEMPTS must be a whole number from 1 to 100, not '\(attempts)'; unset it for the default (4)"
        }
        if let ping = environment["EXPENSE_WATCH_PING"], !(Double(ping).map { $0 >= 0.1 && $0 <= 86_400 } ?? false) { // not money: seconds
            return "EXPENSE_WATCH_PING must be seconds from 0.1 to 86400, not '\(ping)'; unset it for the default (15)"
        }
        if let timeout = environment["EXPENSE_CONNECT_TIMEOUT"], !(Double(timeout).map { $0 >= 0.1 && $0 <= 600 } ?? false) { // not money: seconds
            return "EXPENSE_CONNECT_TIMEOUT must be seconds from 0.1 to 600, not '\(timeout)'; unset it for the default (10)"
        }
        if let chart = environment["EXPENSE_CHART"], chart != "always", chart != "auto" {
            return "EXPENSE_CHART must be 'always' or 'auto', not '\(chart)'"
        }
        if let verbose = environment["EXPENSE_VERBOSE"], switchValue(verbose) == nil {
            return "EXPENSE_VERBOSE must be 1, true, yes or on (or 0, false, no, off, empty), not '\(verbose)'"
        }
        return nil
    }

    /// An on/off environment value: `1`, `true`, `yes`, `on` are on; `0`, `false`, `no`, `off` and empty are
    /// off (in any case); anything else `nil`.
    static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": true
        case "", "0", "false", "no", "off": false
        default: nil
        }
    }

    /// Whether `EXPENSE_VERBOSE` asks `sync` to tell its steps (unset: no).
    static func isVerbose(_ environment: [String: String]) -> Bool {
        environment["EXPENSE_VERBOSE"].flatMap(switchValue) ?? false
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
