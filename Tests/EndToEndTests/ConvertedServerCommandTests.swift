import Foundation
import Testing
import TestSupport

/// `stats --server --in` and `balances --server --in` through the real binaries: a real daemon converts its own
/// records with its own rates (over SQLite, and over PostgreSQL when a cluster is given), and its figures and
/// unconverted list are those the client computes over its synced copy.
@Suite struct ConvertedServerCommandTests {
    static let stats = ["stats", "--period", "month", "--from", "2026-01-01", "--to", "2026-02-28"]

    /// The converted views compared, each as text and as `--json`: direct, inverse and through-the-ledger
    /// conversions, `--at end`, `--at DATE`, `--currency`, categories and weeks.
    static let views: [[String]] = [
        stats + ["--in", "EUR"],
        stats + ["--in", "USD", "--at", "end", "--by", "category"],
        stats + ["--in", "JPY", "--at", "2026-02-25", "--currency", "USD"],
        ["stats", "--period", "week", "--from", "2026-01-05", "--to", "2026-02-15", "--in", "EUR", "--at", "end"],
        ["balances", "--in", "EUR"],
        ["balances", "--in", "USD", "--at", "end"],
        ["balances", "--in", "EUR", "--at", "2026-02-21"],
        ["balances", "--in", "JPY", "--currency", "USD"],
    ]

    /// Checks every view of ``views`` with and without `--server` on `ann`'s synced copy: the same standard
    /// output and standard error, text and `--json`; then that the daemon answered from its own records (an
    /// expense added here and not synced changes only the local figures).
    static func compare(_ ann: ExpenseProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try ann.succeed(["sync"], sourceLocation: sourceLocation)
        for view in views {
            let command = Array(view.prefix(1)), arguments = Array(view.dropFirst())
            for format in [[], ["--json"]] {
                let local = try ann.run(command + arguments + format, environment: ConvertedViewFixture.environment)
                let server = try ann.run(command + ["--server"] + arguments + format, environment: ConvertedViewFixture.environment)
                #expect(local.status == 0 && server.status == 0, "\(view) \(format): \(server) vs \(local)", sourceLocation: sourceLocation)
                #expect(server.stdout == local.stdout, "\(view) \(format):\n\(server.stdout)\nvs\n\(local.stdout)", sourceLocation: sourceLocation)
                #expect(server.stderr == local.stderr, "\(view) \(format): \(server.stderr) vs \(local.stderr)", sourceLocation: sourceLocation)
            }
        }
        // The daemon's unconverted list is its own: CHF, never converted at 1, in both views.
        let stats = try ConvertedStatsCommandTests.figures(try ann.succeed(["stats", "--server"] + Array(Self.stats.dropFirst()) + ["--in", "EUR", "--json"]))
        #expect(stats.rows == [18868, 3606] && stats.in == "EUR" && stats.at == "then", "\(stats)", sourceLocation: sourceLocation)
        #expect(stats.unconverted.map { "\($0["currency"] ?? "") \($0["amount"] ?? "") \($0["reason"] ?? "")" } == ["CHF 3500 no_rate"],
                "\(stats.unconverted)", sourceLocation: sourceLocation)
        let balances = try ConvertedBalancesCommandTests.nets(try ann.succeed(["balances", "--server", "--in", "EUR", "--json"]))
        #expect(balances.rows == ["alice": "9108 8529 579", "bob": "8425 3888 4537", "carol": "920 6036 -5116"], "\(balances)",
                sourceLocation: sourceLocation)
        #expect(balances.unconverted.map { "\($0["currency"] ?? "") \($0["amount"] ?? "")" } == ["CHF 3000"], sourceLocation: sourceLocation)

        // Not synced: 10.00 USD more here (9.20 EUR in February's row, and alice's and bob's balances), not there.
        try ann.succeed(["add", "10.00", "tea", "--currency", "USD", "--split", "alice,bob", "--date", "2026-02-14"],
                        sourceLocation: sourceLocation)
        let stale = try ConvertedStatsCommandTests.figures(try ann.succeed(Self.stats + ["--server", "--in", "EUR", "--json"]))
        let fresh = try ConvertedStatsCommandTests.figures(try ann.succeed(Self.stats + ["--in", "EUR", "--json"]))
        #expect(stale.rows == [18868, 3606] && fresh.rows == [18868, 3606 + 920], "\(stale.rows) \(fresh.rows)", sourceLocation: sourceLocation)
        let daemon = try ConvertedBalancesCommandTests.nets(try ann.succeed(["balances", "--server", "--in", "EUR", "--json"]))
        #expect(daemon.rows["alice"] == "9108 8529 579", "\(daemon.rows)", sourceLocation: sourceLocation)
        #expect(try ConvertedBalancesCommandTests.nets(try ann.succeed(["balances", "--in", "EUR", "--json"])).rows["alice"] == "10028 8989 1039",
                sourceLocation: sourceLocation)
    }

    @Test("stats and balances --server --in over SQLite: the daemon's figures and unconverted list are the client's")
    func sqlite() async throws {
        try await onOwnThread {
            let ann = try ConvertedBalancesCommandTests.household()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann], ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            try Self.compare(ann)
        }
    }

    @Test("stats and balances --server --in over PostgreSQL: the same figures from one snapshot",
          .enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func postgres() async throws {
        try await onOwnThread {
            try withPostgresSchema { target, _, _ in
                let ann = try ConvertedBalancesCommandTests.household()
                let added = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, ["ledger", "add", "default", "--currency", "EUR", "--postgres", target],
                                                   environment: ProcessInfo.processInfo.environment, scratch: ann.directory)
                try #require(added.status == 0, "\(added)")
                let tokenFile = ann.directory + "/default.token"
                try added.stdout.trimmingCharacters(in: .whitespacesAndNewlines).write(toFile: tokenFile, atomically: true, encoding: .utf8)
                let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--postgres", target], scratch: ann.directory)
                defer { _ = daemon.stop() }
                try ann.succeed(["remote", "set", try daemon.addressText(), "--ledger", "default", "--token-file", tokenFile])
                try Self.compare(ann)
            }
        }
    }

    @Test("--server: --at without --in and an unknown --in are refused before the daemon is asked, as without --server")
    func refusals() async throws {
        try await onOwnThread {
            let ann = try ConvertedViewFixture.ledger()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann], ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            try ann.succeed(["sync"])
            for command in [Self.stats, ["balances"]] {
                let alone = try ann.run(command + ["--server", "--at", "end"])
                #expect(alone.status == 64 && alone.stderr.contains("--in"), "\(alone)")
                let unknown = try ann.run(command + ["--server", "--in", "XXY"])
                #expect(unknown.status == 65 && unknown.stderr.contains("invalid_currency"), "\(unknown)")
            }
        }
    }
}
