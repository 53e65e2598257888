import Foundation
import Testing

extension DaemonProcess {
    /// `expensed serve` of a data directory in the first person's scratch directory, with the remote of each of
    /// `people` set to its `default` ledger (the token `serve` wrote there): the start of most stories.
    /// - Returns: the daemon (the caller stops it) and its data directory.
    static func serveDefaultLedger(for people: [ExpenseProcess], _ more: [String] = [],
                                   sourceLocation: SourceLocation = #_sourceLocation) throws -> (daemon: DaemonProcess, data: String) {
        let first = try #require(people.first, "at least one person", sourceLocation: sourceLocation)
        let data = first.directory + "/data"
        let daemon = try serve(data: data, scratch: first.directory, more, sourceLocation: sourceLocation)
        for person in people { try person.setRemote(toDefaultLedgerOf: daemon, data: data, sourceLocation: sourceLocation) }
        return (daemon, data)
    }

    /// A daemon of a `default` ledger in `currency`, and a second machine in that currency, both it and `first`
    /// synced with it: the start of every two-machine story.
    static func sharedLedger(with first: ExpenseProcess, currency: String,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> (daemon: DaemonProcess, second: ExpenseProcess) {
        let second = try ExpenseProcess()
        try second.succeed(["config", "set", "currency", currency], sourceLocation: sourceLocation)
        let (daemon, _) = try serveDefaultLedger(for: [first, second], ["--currency", currency], sourceLocation: sourceLocation)
        try first.succeed(["sync"], sourceLocation: sourceLocation)
        try second.succeed(["sync"], sourceLocation: sourceLocation)
        return (daemon, second)
    }

    /// The owner token of the `default` ledger a daemon made in `data` (`DATA/default.token`, without its newline).
    static func defaultToken(data: String) throws -> String {
        try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A wire client that said `hello` to this daemon's `default` ledger (made in `data`) with its owner token.
    func wireClient(helloToDefaultLedgerIn data: String) throws -> WireClient {
        let client = try WireClient(address())
        do {
            _ = try client.hello(token: try Self.defaultToken(data: data))
        } catch {
            client.close()
            throw error
        }
        return client
    }

    /// What points a cache at this daemon's `default` ledger without `remote set`: `EXPENSE_SERVER`,
    /// `EXPENSE_LEDGER` and `EXPENSE_TOKEN` (read from `data`).
    func defaultLedgerEnvironment(data: String) throws -> [String: String] {
        let token = try DaemonProcess.defaultToken(data: data)
        return ["EXPENSE_SERVER": try addressText(), "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]
    }
}

extension ExpenseProcess {
    /// `expense remote set ADDRESS --ledger default --token-file DATA/default.token` for `daemon`.
    func setRemote(toDefaultLedgerOf daemon: DaemonProcess, data: String,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        try succeed(["remote", "set", try daemon.addressText(), "--ledger", "default", "--token-file", data + "/default.token"],
                    sourceLocation: sourceLocation)
    }
}
