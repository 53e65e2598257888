import CommandLineKit
import ExpenseProtocol
import ExpenseServer
import FoundationEssentials

/// `expensed token add|list|revoke`: a ledger's named tokens, changed in its file beside a running daemon
/// (``ExpenseServer/LedgerDirectory/addToken(dataDirectory:ledger:name:role:)`` and its siblings), or with
/// `--postgres` in the database beside any number of daemons (``ExpenseServer/PostgresLedgerDirectory``).
enum TokenCommand {
    /// Makes the token and prints it, and nothing else, on stdout.
    static func add(_ command: ParsedCommand) throws(UsageError) -> ExitCode {
        let name = command[ExpensedArguments.name] ?? ""
        guard LedgerDirectory.isValid(name: name) else {
            throw UsageError(LedgerError.invalidTokenName(name).message, path: command.path)
        }
        // Required: the parser has refused a command line without it.
        guard let role = try command.choice(ExpensedOptions.role) else { throw UsageError("--role is required", path: command.path) }
        do {
            let ledger = command[ExpensedOptions.ledger] ?? ""
            let token = try ExpensedCLI.postgresOption(command).map {
                try PostgresLedgerDirectory.addToken(conninfo: $0, ledger: ledger, name: name, role: role)
            } ?? LedgerDirectory.addToken(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]),
                                          ledger: ledger, name: name, role: role)
            ExpensedCLI.printOut(token + "\n")
            return .success
        } catch {
            return ExpensedCLI.fail(error)
        }
    }

    /// Prints `NAME ROLE CREATED LAST-USED` lines (aligned), or a JSON array with `--json`.
    static func list(_ command: ParsedCommand) throws(UsageError) -> ExitCode {
        let tokens: [StoredToken]
        do {
            let ledger = command[ExpensedOptions.ledger] ?? ""
            tokens = try ExpensedCLI.postgresOption(command).map { try PostgresLedgerDirectory.tokens(conninfo: $0, ledger: ledger) }
                ?? LedgerDirectory.tokens(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), ledger: ledger)
        } catch {
            return ExpensedCLI.fail(error)
        }
        if command[ExpensedOptions.json] {
            var writer = JSONWriter()
            writer.beginArray()
            for token in tokens {
                writer.beginObject()
                writer.member("created", time(token.created))
                if let lastUsed = token.lastUsed { writer.member("lastUsed", time(lastUsed)) } else { writer.key("lastUsed"); writer.null() }
                writer.member("name", token.name)
                writer.member("role", token.role.rawValue)
                writer.endObject()
            }
            writer.endArray()
            ExpensedCLI.printOut(String(decoding: writer.bytes, as: UTF8.self) + "\n")
            return .success
        }
        let width = tokens.map(\.name.count).max() ?? 0
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        let lines = tokens.map { token in
            padded(token.name, max(width, 4)) + "  " + padded(token.role.rawValue, 6) + "  "
                + "created " + time(token.created) + "  last used " + (token.lastUsed.map(time) ?? "never") + "\n"
        }
        ExpensedCLI.printOut(lines.joined())
        return .success
    }

    /// Removes the token; says so on stderr.
    static func revoke(_ command: ParsedCommand) -> ExitCode {
        let name = command[ExpensedArguments.name] ?? ""
        let ledger = command[ExpensedOptions.ledger] ?? ""
        do {
            if let conninfo = ExpensedCLI.postgresOption(command) {
                try PostgresLedgerDirectory.revokeToken(conninfo: conninfo, ledger: ledger, name: name)
            } else {
                try LedgerDirectory.revokeToken(dataDirectory: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]), ledger: ledger, name: name)
            }
            ExpensedCLI.printError("revoked token '\(name)' of ledger '\(ledger)'; a running daemon closes its connections within a second")
            return .success
        } catch {
            return ExpensedCLI.fail(error)
        }
    }

    /// Unix seconds as `2026-12-01T12:00:00Z`.
    static func time(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}
