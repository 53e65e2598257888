import TestSupport
import Foundation
import Testing

/// Shared expenses through the real binaries and daemon: members, splits, balances and settle-up, and what two
/// machines offline do to one shared expense.
@Suite struct SharedExpenseCommandTests {
    /// Two synced machines, with members alice, bob and carol known to both, and `me` set on each (alice on the
    /// first, bob on the second).
    static func household() throws -> (ExpenseProcess, ExpenseProcess, DaemonProcess) {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
        for name in ["alice", "bob", "carol"] { try ann.succeed(["member", "add", name]) }
        try ann.succeed(["config", "set", "me", "alice"])
        try ann.succeed(["sync"])
        try bob.succeed(["sync"])
        try bob.succeed(["config", "set", "me", "bob"])
        return (ann, bob, daemon)
    }

    @Test("balances and settle-up of shared expenses agree on both machines, exact to the cent")
    func balancesAndSettle() async throws {
        try await onOwnThread {
            let (ann, bob, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "100.00", "food", "--split", "all", "--date", "2026-11-01"])
            try bob.succeed(["add", "90.00", "dinner", "--split", "alice=2,bob=1", "--date", "2026-11-02"])
            try ann.succeed(["add", "1000", "train", "--currency", "JPY", "--split", "alice,bob,carol", "--date", "2026-11-03"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            let balances = try ann.succeed(["balances", "--json"])
            #expect(try bob.succeed(["balances", "--json"]) == balances)
            let rows = try #require(JSONSerialization.jsonObject(with: Data(balances.utf8)) as? [[String: Any]])
            for currency in ["USD", "JPY"] {
                let nets = rows.filter { $0["currency"] as? String == currency }.compactMap { $0["net"] as? Int }
                #expect(nets.count == 3 && nets.reduce(0, +) == 0, "\(currency): \(nets)")
            }
            // 100.00 among three is 33.34/33.33/33.33; alice's 90.00 dinner share is 60.00.
            let usdShares = rows.filter { $0["currency"] as? String == "USD" }.compactMap { $0["share"] as? Int }.sorted()
            #expect(usdShares.reduce(0, +) == 19_000, "\(usdShares)")
            let jpyShares = rows.filter { $0["currency"] as? String == "JPY" }.compactMap { $0["share"] as? Int }.sorted()
            #expect(jpyShares == [333, 333, 334], "\(jpyShares)")
            let settle = try ann.succeed(["settle", "--json"])
            let transfers = try #require(JSONSerialization.jsonObject(with: Data(settle.utf8)) as? [[String: Any]])
            #expect(transfers.count <= 4 && !transfers.isEmpty, "\(settle)")
            // Each transfer names both members and gives their ids, as `balances --json` does.
            let ids = try Dictionary(uniqueKeysWithValues: ["alice", "bob", "carol"].map { ($0, try ann.memberId($0)) })
            #expect(transfers.allSatisfy { transfer in
                ["from", "to"].allSatisfy { side in (transfer[side] as? String).flatMap { ids[$0] } == transfer[side + "Id"] as? String }
            }, "\(settle)")
            let list = try ann.succeed(["list"], environment: ["LC_ALL": "C"])
            #expect(list.contains("PAID BY") && list.contains("alice 60.00") && list.contains("bob 30.00"), "\(list)")
        }
    }

    @Test("--member counts that member's part: shares of shared expenses, the whole of unshared ones they paid; transfers are never spending")
    func memberViews() async throws {
        try await onOwnThread {
            let (ann, _, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "90.00", "dinner", "--split", "alice=2,bob=1", "--date", "2026-11-02"])
            try ann.succeed(["add", "12.00", "dinner", "--paid-by", "bob", "--date", "2026-11-03"])   // not shared: bob's own
            try ann.succeed(["add", "5.00", "dinner", "--date", "2026-11-04"])                        // alice's own (me)
            try ann.succeed(["settle", "record", "bob", "alice", "30.00", "--date", "2026-11-05"])
            let whole = try ann.succeed(["summary", "--json"])
            #expect(whole.contains("\"amount\" : 10700"), "\(whole)")   // the transfer is not spending
            let bob = try ann.succeed(["summary", "--member", "bob", "--json"])
            #expect(bob.contains("\"amount\" : 4200") && bob.contains("\"count\" : 2"), "\(bob)")
            let alice = try ann.succeed(["summary", "--member", "alice", "--json"])
            #expect(alice.contains("\"amount\" : 6500"), "\(alice)")
            #expect(try ann.run(["summary", "--member", "bob", "--server"]).status == 64)
            #expect(try ann.run(["summary", "--member", "zed"]).stderr.contains("unknown_member"))
            let stats = try ann.succeed(["stats", "--member", "bob", "--from", "2026-11-01", "--to", "2026-11-30", "--json"])
            #expect(stats.contains("4200"), "\(stats)")
            try ann.succeed(["budget", "set", "dinner", "50", "--start", "2026-11-01"])
            let status = try ann.succeed(["budget", "status", "--member", "bob", "--on", "2026-11-30", "--json"])
            #expect(status.contains("\"spent\" : 4200"), "\(status)")
            // Balances after bob paid alice 30.00 back: alice paid 95.00 (90 shared), her share 60.00; bob's 30.00 is settled.
            let balances = try ann.succeed(["balances", "--json"])
            #expect(balances.contains("\"net\" : 0"), "\(balances)")
            let report = ann.home + "/report.html"
            try ann.succeed(["report", "--output", report, "--from", "2026-11-01", "--to", "2026-11-30"])
            let html = try String(contentsOfFile: report, encoding: .utf8)
            #expect(html.contains("Who owes whom") && html.contains("Everyone is settled up."), "\(html)")
        }
    }

    @Test("export and import keep the payer and the split; a file naming members this ledger lacks, or who left, is refused whole")
    func exportImportRoundTrip() async throws {
        try await onOwnThread {
            let (ann, _, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "90.00", "dinner", "--split", "alice=2,bob=1", "--date", "2026-11-02"])
            try ann.succeed(["add", "4.00", "tea", "--date", "2026-11-03"])
            for format in ["csv", "json"] {
                let file = ann.home + "/export.\(format)"
                try ann.succeed(["export", "--format", format, "--output", file])
                #expect(try ann.succeed(["import", file]) == "0 new, 2 already present, 0 differing\n")
                let stranger = try ExpenseProcess()
                let refused = try stranger.run(["import", file])
                #expect(refused.status == 65 && refused.stderr.contains("unknown_member"), "\(refused)")
                #expect(try stranger.succeed(["list", "--json"]) == "[]\n")
            }
            // A member who left: a new row naming them is refused, the rows already present are not.
            let file = ann.home + "/export.csv"
            try ann.succeed(["member", "leave", "bob"])
            #expect(try ann.succeed(["import", file]) == "0 new, 2 already present, 0 differing\n")
            let csv = try String(contentsOfFile: file, encoding: .utf8)
            let lines = csv.split(separator: "\n").map(String.init)
            let shared = try #require(lines.first { $0.contains("dinner") })
            // The same row without its id: a new expense, derived from its values, naming bob.
            try (lines[0] + "\n" + shared.split(separator: ",", maxSplits: 1).dropFirst().joined().prefixed(",") + "\n")
                .write(toFile: ann.home + "/again.csv", atomically: true, encoding: .utf8)
            let again = try ann.run(["import", ann.home + "/again.csv"])
            #expect(again.status == 65 && again.stderr.contains("member_left"), "\(again)")
        }
    }

    @Test("CSV export names the payer and the split's members, as a person types them; another ledger whose members have other ids imports it by name, and a file of ids still imports")
    func csvNamesMembers() async throws {
        try await onOwnThread {
            let (ann, _, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "90.00", "dinner", "--split", "alice=2,bob=1", "--date", "2026-11-02"])
            try ann.succeed(["add", "12.00", "taxi", "--paid-by", "bob", "--split", "alice=25%,bob=75%", "--date", "2026-11-03"])
            try ann.succeed(["add", "7.50", "tea", "--split", "alice=2.50,carol=5", "--date", "2026-11-04"])
            try ann.succeed(["add", "3.00", "bread", "--split", "all", "--date", "2026-11-05"])
            let file = ann.home + "/export.csv"
            try ann.succeed(["export", "--output", file])
            let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init)
            let dinner = try #require(rows.first { $0.contains("dinner") })
            #expect(dinner.contains(",alice,\"shares:") && dinner.contains("alice=2") && dinner.contains("bob=1"), "\(dinner)")
            let taxi = try #require(rows.first { $0.contains("taxi") })
            #expect(taxi.contains(",bob,\"percent:") && taxi.contains("alice=25%") && taxi.contains("bob=75%"), "\(taxi)")
            let tea = try #require(rows.first { $0.contains("tea") })
            #expect(tea.contains("exact:") && tea.contains("alice=2.50") && tea.contains("carol=5.00"), "\(tea)")
            let bread = try #require(rows.first { $0.contains("bread") })
            #expect(bread.contains("equal:") && bread.contains("alice") && bread.contains("carol"), "\(bread)")
            // Another ledger: alice there was added under another name and renamed, so her id differs.
            let other = try ExpenseProcess()
            try other.succeed(["member", "add", "ally"])
            try other.succeed(["member", "rename", "ally", "alice"])
            for name in ["bob", "carol"] { try other.succeed(["member", "add", name]) }
            #expect(try other.succeed(["import", file]) == "4 new, 0 already present, 0 differing\n")
            #expect(try other.succeed(["balances", "--json"]) == ann.succeed(["balances", "--json"])
                .replacingOccurrences(of: try ann.memberId("alice"), with: try other.memberId("alice")))
            // A file written before exports named members (ids, the canonical split) still imports.
            let aliceId = try ann.memberId("alice"), bobId = try ann.memberId("bob")
            let header = "id,date,amount,currency,category,note,paid_by,split\n"
            try (header + ",2026-11-06,6.00,USD,soup,,\(aliceId),\"equal:\([aliceId, bobId].sorted().joined(separator: ","))\"\n")
                .write(toFile: ann.home + "/ids.csv", atomically: true, encoding: .utf8)
            #expect(try ann.succeed(["import", ann.home + "/ids.csv"]) == "1 new, 0 already present, 0 differing\n")
            // A name no member has is refused whole, naming it.
            try (header + ",2026-11-07,6.00,USD,soup,,alice,\"equal:alice,zed\"\n").write(toFile: ann.home + "/zed.csv", atomically: true, encoding: .utf8)
            let refused = try ann.run(["import", ann.home + "/zed.csv"])
            #expect(refused.status == 65 && refused.stderr.contains("unknown_member") && refused.stderr.contains("zed"), "\(refused)")
        }
    }

    @Test("a member who leaves before the first sync stays in the split made while they were in; the same name added on two machines offline is one member")
    func leavingAndAddingOffline() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            for name in ["alice", "bob"] { try ann.succeed(["member", "add", name]) }
            try ann.succeed(["add", "10.00", "x", "--paid-by", "alice", "--split", "alice,bob", "--date", "2026-11-01"])
            try ann.succeed(["member", "leave", "bob"])
            let synced = try ann.run(["sync"])
            #expect(synced.status == 0, "\(synced)")
            #expect(try ann.succeed(["balances", "--json"]) == ann.succeed(["balances", "--server", "--json"]))
            #expect(try ann.succeed(["member", "list"]) == "alice\nbob  (left)\n")

            // carol, added on both machines before either syncs: one member, and both machines' expenses stand.
            try bob.succeed(["sync"])
            try ann.succeed(["member", "add", "carol"])
            try bob.succeed(["member", "add", "carol"])
            try ann.succeed(["add", "6.00", "y", "--paid-by", "carol", "--split", "alice,carol", "--date", "2026-11-02"])
            try bob.succeed(["add", "8.00", "z", "--paid-by", "carol", "--split", "alice,carol", "--date", "2026-11-03"])
            try ann.succeed(["sync"])
            let second = try bob.run(["sync"])
            #expect(second.status == 0, "\(second)")
            try ann.succeed(["sync"])
            #expect(try ann.succeed(["member", "list"]) == "alice\nbob  (left)\ncarol\n")
            #expect(try bob.succeed(["member", "list"]) == "alice\nbob  (left)\ncarol\n")
            #expect(try ann.succeed(["list", "--json"]) == bob.succeed(["list", "--json"]))
        }
    }

    @Test("undo that would bring back a member who left is refused here, before anything is queued, as the daemon would")
    func undoRespectsMembers() async throws {
        try await onOwnThread {
            let (ann, _, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["add", "30.00", "taxi", "--split", "alice,carol", "--date", "2026-11-01"])
                .trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"])
            try ann.succeed(["edit", String(id.prefix(8)), "--split", "alice,bob"])
            try ann.succeed(["member", "leave", "carol"])
            try ann.succeed(["sync"])
            let undone = try ann.run(["undo", String(id.prefix(8))])
            #expect(undone.status == 65 && undone.stderr.contains("member_left"), "\(undone)")
            #expect(try ann.run(["sync"]).status == 0)
        }
    }

    @Test("offline: an amount edited on one machine and the split on the other is a conflict; a payer change and an amount change are both kept")
    func moneyAndSplitConflict() async throws {
        try await onOwnThread {
            let (ann, bob, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["add", "60.00", "food", "--split", "alice,bob", "--date", "2026-11-01"])
                .trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"]); try bob.succeed(["sync"])
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "90.00"])
            try bob.succeed(["edit", String(id.prefix(8)), "--split", "alice,bob,carol"])
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let conflicts = try bob.succeed(["conflicts"], environment: ["LC_ALL": "C"])
            #expect(conflicts.contains("90.00 USD") && conflicts.contains("60.00 USD split equal:"), "\(conflicts)")
            // The split names members, as they were typed, not by id.
            for name in ["alice", "bob", "carol"] { #expect(!conflicts.contains(String(try bob.memberId(name).prefix(8))), "\(conflicts)") }
            try bob.succeed(["resolve", String(id.prefix(8)), "--theirs"])

            let other = try ann.succeed(["add", "30.00", "food", "--split", "alice,bob", "--date", "2026-11-02"])
                .trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"]); try bob.succeed(["sync"])
            try ann.succeed(["edit", String(other.prefix(8)), "--amount", "45.00"])
            try bob.succeed(["edit", String(other.prefix(8)), "--paid-by", "bob"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            let listed = try ann.succeed(["list", "--json"])
            let records = try #require(JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])
            let kept = try #require(records.first { $0["id"] as? String == other })
            let members = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["member", "list", "--json"]).utf8)) as? [[String: Any]])
            let bobId = members.first { $0["name"] as? String == "bob" }?["id"] as? String
            #expect(kept["amount"] as? Int == 4500 && kept["paidBy"] as? String == bobId, "\(kept)")
        }
    }

    @Test("a member renamed on one machine while used in a split on the other keeps the split; names stay unique, offline too")
    func renameAndUniqueNames() async throws {
        try await onOwnThread {
            let (ann, bob, daemon) = try Self.household()
            defer { _ = daemon.stop() }
            try ann.succeed(["member", "rename", "carol", "caroline"])
            let id = try bob.succeed(["add", "30.00", "taxi", "--split", "bob,carol", "--date", "2026-11-01"])
                .trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            let list = try ann.succeed(["list"], environment: ["LC_ALL": "C"])
            #expect(list.contains("caroline 15.00") && list.contains(String(id.prefix(8))), "\(list)")
            // A new member under the old name gets a random id (the derived one is taken), and a second member of a
            // name is refused by the daemon: bob's "carol" after ann renamed hers is a member of its own.
            try ann.succeed(["member", "add", "dave"])
            try bob.succeed(["member", "rename", "caroline", "dave"])
            try ann.succeed(["sync"])
            let refused = try bob.run(["sync"])
            #expect(refused.status == 65, "\(refused)")
            let status = try bob.run(["status"])
            #expect((status.stdout + status.stderr).contains("member_exists"), "\(status)")
            try ann.succeed(["member", "rename", "caroline", "carol"])
            #expect(try ann.succeed(["member", "add", "caroline"]).count == 37)
            #expect(try ann.run(["member", "add", " dave "]).status == 65)
            #expect(try ann.run(["add", "5", "x", "--split", "alice,zed"]).stderr.contains("unknown_member"))
        }
    }
}

extension String {
    /// This text after `prefix`.
    fileprivate func prefixed(_ prefix: String) -> String { prefix + self }
}

extension ExpenseProcess {
    /// The id of the member this machine knows as `name` (`member list --json`).
    fileprivate func memberId(_ name: String) throws -> String {
        let members = try #require(JSONSerialization.jsonObject(with: Data(try succeed(["member", "list", "--json"]).utf8)) as? [[String: Any]])
        return try #require(members.first { $0["name"] as? String == name }?["id"] as? String)
    }
}
