import TestSupport
import Foundation
import Testing

/// `expense import --format splitwise` through the real binary, with a file written by hand in Splitwise's "Export
/// as spreadsheet" format: the balances it leaves are the file's `Total balance` rows, and a second import adds
/// nothing.
@Suite struct SplitwiseImportCommandTests {
    /// A group's export: header, the empty line Splitwise writes after it, expenses (one paid for others only, one
    /// without a category, one in yen, one with a comma in its description), a payment, and one `Total balance`
    /// row per currency.
    static let export = """
        Date,Description,Category,Cost,Currency,Alice,Bob,Carol

        2026-01-05,Groceries,Groceries,90.00,USD,60.00,-30.00,-30.00
        2026-01-06,"Dinner, with wine",Dining out,100.00,USD,-50.00,50.00,0.00
        2026-01-07,Taxi,,30.00,USD,-10.00,-10.00,20.00
        2026-01-08,Ramen,Dining out,3000.00,JPY,2000.00,-1000.00,-1000.00
        2026-01-09,Coffee,Dining out,4.50,USD,0.00,0.00,0.00
        2026-01-10,Bob paid Alice,Payment,20.00,USD,-20.00,20.00,0.00
        2026-01-11,Total balance, , ,USD,-20.00,30.00,-10.00
        2026-01-11,Total balance, , ,JPY,2000.00,-1000.00,-1000.00

        """

    /// The `Total balance` rows of `text` as (member, currency) → minor units (`decimals` per currency).
    static func totals(_ text: String, decimals: [String: Int]) throws -> [String: Int] {
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let members = try #require(lines.first).dropFirst(5)
        var totals: [String: Int] = [:]
        for cells in lines where cells.count > 1 && cells[1] == "Total balance" {
            let digits = try #require(decimals[cells[4]])
            for (name, cell) in zip(members, cells.dropFirst(5)) {
                // "-20.00" → -2000 in cents; "2000.00" → 2000 yen (the zeros past the currency's decimals dropped).
                let parts = cell.split(separator: ".", omittingEmptySubsequences: false)
                let fraction = String((parts.count > 1 ? parts[1] : "").prefix(digits))
                let digitsText = String(parts[0]) + fraction.padding(toLength: digits, withPad: "0", startingAt: 0)
                let whole = try #require(Int(digitsText))
                totals[name + " " + cells[4]] = whole
            }
        }
        return totals
    }

    /// `balances --json` as (member name, currency) → net.
    static func nets(_ json: String) throws -> [String: Int] {
        let rows = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        var nets: [String: Int] = [:]
        for row in rows {
            nets[try #require(row["name"] as? String) + " " + (try #require(row["currency"] as? String))] = try #require(row["net"] as? Int)
        }
        return nets
    }

    @Test("an export imports as members, exact splits and a transfer; balances are its Total balance rows; a second import adds nothing")
    func importThenImportAgain() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["member", "add", "Bob"])
            let file = ann.directory + "/group.csv"
            try Self.export.write(toFile: file, atomically: true, encoding: .utf8)

            let dry = try ann.run(["import", "--format", "splitwise", "--dry-run", file])
            #expect(dry.status == 0 && dry.stdout == "5 new, 0 already present, 0 differing; transfers: 1 new, 0 already present, 0 differing\n",
                    "\(dry)")
            #expect(dry.stderr == "Would add member 'Alice'\nWould add member 'Carol'\nDry run: nothing stored.\n", "\(dry)")
            #expect(try ann.succeed(["list", "--json"]) == "[]\n")

            let imported = try ann.run(["import", "--format", "splitwise", file])
            #expect(imported.status == 0 && imported.stdout == dry.stdout, "\(imported)")
            #expect(imported.stderr == "Added member 'Alice'\nAdded member 'Carol'\n", "\(imported)")
            let members = try #require(JSONSerialization.jsonObject(with: Data(try ann.succeed(["member", "list", "--json"]).utf8)) as? [[String: Any]])
            #expect(members.compactMap { $0["name"] as? String } == ["Alice", "Bob", "Carol"])

            // What Splitwise said everyone's balance was is what it is here, to the cent (and the yen).
            let balances = try ann.succeed(["balances", "--json"])
            let expected = try Self.totals(Self.export, decimals: ["USD": 2, "JPY": 0])
            let nets = try Self.nets(balances)
            for (key, total) in expected { #expect((nets[key] ?? 0) == total, "\(key): \(balances)") }
            #expect(Set(nets.keys).isSubset(of: Set(expected.keys)), "\(balances)")

            let list = try ann.succeed(["list", "--json"])
            #expect(list.contains("\"note\" : \"Dinner, with wine\"") && list.contains("\"category\" : \"General\""), "\(list)")
            #expect(list.contains("\"currency\" : \"JPY\"") && list.contains("\"amount\" : 3000"), "\(list)")
            let transfers = try ann.succeed(["settle", "list", "--json"])
            #expect(transfers.contains("\"from\" : \"Bob\"") && transfers.contains("\"to\" : \"Alice\"") && transfers.contains("\"amount\" : 2000"),
                    "\(transfers)")

            let again = try ann.run(["import", "--format", "splitwise", file])
            #expect(again.status == 0 && again.stdout == "0 new, 5 already present, 0 differing; transfers: 0 new, 1 already present, 0 differing\n",
                    "\(again)")
            #expect(again.stderr == "", "\(again)")
            #expect(try ann.succeed(["balances", "--json"]) == balances)
            #expect(try ann.succeed(["list", "--json"]) == list)
        }
    }

    @Test("a file with one row that cannot be represented stores nothing and names the row's line")
    func aBadRowStoresNothing() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let file = ann.directory + "/group.csv"
            let twoPayers = Self.export.replacingOccurrences(of: "2026-01-07,Taxi,,30.00,USD,-10.00,-10.00,20.00",
                                                             with: "2026-01-07,Taxi,,30.00,USD,10.00,10.00,-20.00")
            try twoPayers.write(toFile: file, atomically: true, encoding: .utf8)
            let refused = try ann.run(["import", "--format", "splitwise", file])
            #expect(refused.status == 65 && refused.stdout == "", "\(refused)")
            #expect(refused.stderr.hasPrefix("Error: nothing imported: 1 bad row\n  line 5: multiple_payers: "), "\(refused)")
            #expect(try ann.succeed(["member", "list", "--json"]) == "[]\n")
            #expect(try ann.succeed(["list", "--json"]) == "[]\n")
            #expect(try ann.succeed(["settle", "list", "--json"]) == "[]\n")
            // Options of a bank's CSV do not apply to a Splitwise export.
            #expect(try ann.run(["import", "--format", "splitwise", "--currency", "EUR", file]).status == 64)
        }
    }

    @Test("two machines importing the same export converge on one copy of each member, expense and transfer")
    func twoMachinesConverge() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            for machine in [ann, bob] {
                let file = machine.directory + "/group.csv"
                try Self.export.write(toFile: file, atomically: true, encoding: .utf8)
                try machine.succeed(["import", "--format", "splitwise", file])
            }
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for machine in [ann, bob] {
                let members = try #require(JSONSerialization.jsonObject(with: Data(try machine.succeed(["member", "list", "--json"]).utf8)) as? [[String: Any]])
                #expect(members.compactMap { $0["name"] as? String } == ["Alice", "Bob", "Carol"])
                let expenses = try #require(JSONSerialization.jsonObject(with: Data(try machine.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
                #expect(expenses.count == 5)
            }
            #expect(try ann.succeed(["balances", "--json"]) == (try bob.succeed(["balances", "--json"])))
            #expect(try ann.succeed(["settle", "list", "--json"]) == (try bob.succeed(["settle", "list", "--json"])))
        }
    }
}
