import TestSupport
import Foundation
import Testing

/// `expense balances --server` through the real binaries and daemon: the daemon computes the balances from its own
/// records (`balances`, Protocol.md §5.11) and, after a sync, prints exactly what the local copy computes.
@Suite struct BalancesServerCommandTests {
    private static func household() throws -> (ExpenseProcess, ExpenseProcess, DaemonProcess) {
        try SharedExpenseCommandTests.household()
    }

    @Test("after a sync, balances --server prints what balances prints, as JSON and as a table, on both machines")
    func serverAgreesWithTheLocalCopy() async throws {
        try await onOwnThread {
            let (ann, bob, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "100.00", "food", "--split", "all", "--date", "2026-11-01"])
            try bob.succeed(["add", "90.01", "dinner", "--split", "alice=2,bob=1", "--date", "2026-11-02"])
            try ann.succeed(["add", "1000", "train", "--currency", "JPY", "--split", "alice,bob,carol", "--date", "2026-11-03"])
            try ann.succeed(["add", "12.00", "lunch", "--date", "2026-11-04"])   // not shared: no balance
            let gone = try ann.succeed(["add", "50.00", "taxi", "--split", "all", "--date", "2026-11-04"]).trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"])
            try ann.succeed(["delete", String(gone.prefix(8))])
            try bob.succeed(["settle", "record", "bob", "alice", "25.00", "--date", "2026-11-05"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])

            let local = try ann.succeed(["balances", "--json"])
            let rows = try #require(JSONSerialization.jsonObject(with: Data(local.utf8)) as? [[String: Any]])
            #expect(rows.count == 6 && Set(rows.compactMap { $0["currency"] as? String }) == ["USD", "JPY"], "\(local)")
            #expect(try ann.succeed(["balances", "--server", "--json"]) == local)
            #expect(try bob.succeed(["balances", "--server", "--json"]) == local)
            #expect(try bob.succeed(["balances", "--json"]) == local)
            let table = try ann.succeed(["balances"], environment: ["LC_ALL": "C"])
            #expect(table.contains("MEMBER") && table.contains("alice"), "\(table)")
            #expect(try ann.succeed(["balances", "--server"], environment: ["LC_ALL": "C"]) == table)
            let yen = try ann.succeed(["balances", "--currency", "JPY", "--json"])
            #expect(try ann.succeed(["balances", "--currency", "JPY", "--server", "--json"]) == yen)
            #expect(!yen.contains("USD") && yen.contains("JPY"), "\(yen)")
            #expect(try ann.succeed(["balances", "--currency", "EUR", "--server", "--json"]) == "[]\n")
        }
    }

    @Test("--server answers from the daemon's records: unsynced local changes are not in it, and a member this copy has not pulled shows as an id")
    func serverIsTheAuthority() async throws {
        try await onOwnThread {
            let (ann, bob, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            #expect(try ann.run(["balances", "--server"]).stderr.contains("No shared expenses."))
            try ann.succeed(["add", "30.00", "food", "--split", "alice,bob", "--date", "2026-11-01"])
            try ann.succeed(["sync"])
            let synced = try ann.succeed(["balances", "--server", "--json"])
            // Not synced yet: the local copy counts it, the daemon does not.
            try ann.succeed(["add", "60.00", "food", "--split", "alice,bob", "--date", "2026-11-02"])
            #expect(try ann.succeed(["balances", "--server", "--json"]) == synced)
            #expect(try ann.succeed(["balances", "--json"]) != synced)
            // A member bob's copy does not know yet: the daemon's rows name them by id there.
            try ann.succeed(["member", "add", "dave"])
            try ann.succeed(["add", "10.00", "cab", "--split", "alice,dave", "--date", "2026-11-03"])
            try ann.succeed(["sync"])
            let members = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["member", "list", "--json"]).utf8)) as? [[String: Any]])
            let dave = try #require(members.first { $0["name"] as? String == "dave" }?["id"] as? String)
            let fromBob = try #require(JSONSerialization.jsonObject(with: Data(try bob.succeed(["balances", "--server", "--json"]).utf8)) as? [[String: Any]])
            let daveRow = try #require(fromBob.first { $0["member"] as? String == dave })
            #expect(daveRow["name"] as? String == dave && daveRow["share"] as? Int == 500, "\(daveRow)")
            #expect(try ann.succeed(["balances", "--server", "--json"]) == (try ann.succeed(["balances", "--json"])))
        }
    }
}
