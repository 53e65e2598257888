import TestSupport
import Foundation
import Testing

/// `expense budget …` as a real process: output, warnings on standard error, exit codes, and "today" in the
/// ledger's configured time zone.
@Suite struct ExpenseBudgetTests {
    @Test("status chains full rollover and keeps earlier amounts after a change; add warns when over, exit 0")
    func statusAndWarnings() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let env = ["LC_ALL": "C"]
            try expense.succeed(["config", "set", "currency", "EUR"])
            let id = try expense.succeed(["budget", "set", "food", "300", "--start", "2026-01-01", "--rollover", "full"], environment: env)
            #expect(UUID(uuidString: id.trimmingCharacters(in: .newlines)) != nil)
            try expense.succeed(["add", "120", "food", "--date", "2026-01-10"])
            try expense.succeed(["add", "250", "food", "--date", "2026-02-03"])
            try expense.succeed(["add", "99", "food", "--currency", "USD", "--date", "2026-02-03"])  // another currency: never counted
            try expense.succeed(["budget", "set", "food", "400", "--from", "2026-03-15"], environment: env)
            let february = try expense.run(["budget", "status", "--on", "2026-02-10"], environment: env)
            #expect(february.stdout == "food  EUR  2026-02-01 to 2026-02-28  budgeted 300.00, carried 180.00, spent 250.00, left 230.00\n",
                    "\(february)")
            let march = try expense.succeed(["budget", "status", "--on", "2026-03-31", "--json"])
            #expect(march.contains(#""budgeted" : 40000"#) && march.contains(#""carried" : 23000"#) && march.contains(#""left" : 63000"#))
            let over = try expense.run(["add", "500", "food", "--date", "2026-02-04"], environment: env)
            #expect(over.status == 0)
            #expect(over.stderr == "Warning: the 'food' budget is over by 270.00 EUR for 2026-02-01 to 2026-02-28.\n", "\(over)")
            let list = try expense.succeed(["budget", "list", "--json"])
            #expect(list.contains(#""from" : "2026-03-01""#) && list.contains(#""amount" : 30000"#))
            #expect(try expense.run(["budget", "set", "food", "5", "--period", "fortnight"]).status == 64)
            #expect(try expense.run(["budget", "set", "food", "0"]).status == 65)
            try expense.succeed(["budget", "remove", "food"])
            let gone = try expense.run(["budget", "remove", "food"])
            #expect(gone.status == 1 && gone.stderr.contains("not_found"), "\(gone)")
        }
    }

    @Test("today is the day in the ledger's time zone, on both sides of midnight")
    func timeZones() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            // 2026-02-28 23:30 UTC: already March 1 in Berlin, still February 28 in New York.
            let now = ["EXPENSE_NOW": "1772321400", "LC_ALL": "C", "TZ": "UTC"]
            try expense.succeed(["budget", "set", "food", "100", "--currency", "EUR", "--start", "2026-01-01"], environment: now)
            try expense.succeed(["config", "set", "timezone", "Europe/Berlin"])
            #expect(try expense.succeed(["config", "get", "timezone"]) == "Europe/Berlin\n")
            #expect(try expense.succeed(["budget", "status"], environment: now).contains("2026-03-01 to 2026-03-31"))
            try expense.succeed(["config", "set", "timezone", "America/New_York"])
            #expect(try expense.succeed(["budget", "status"], environment: now).contains("2026-02-01 to 2026-02-28"))
            let bad = try expense.run(["config", "set", "timezone", "Mars/Olympus"])
            #expect(bad.status == 65 && bad.stderr.contains("invalid_value"), "\(bad)")
            try expense.succeed(["config", "set", "timezone", "local"])
            #expect(try expense.succeed(["config", "get", "timezone"]) == "local\n")
        }
    }
}

/// Budgets between two real caches through a real `expensed`.
@Suite struct ExpenseBudgetSyncTests {
    @Test("a budget set on one machine reaches the other with sync; the same budget set on both is one; sync's counts include budgets")
    func budgetsSync() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            for person in [ann, bob] {
                try person.succeed(["budget", "set", "food", "300", "--currency", "EUR", "--start", "2026-01-01"])
            }
            try ann.succeed(["budget", "set", "rent", "900", "--currency", "EUR", "--start", "2026-01-01"])
            let first = try ann.run(["sync"])
            #expect(first.status == 0 && first.stdout == "pushed 2, pulled 0, conflicts 0\n" && first.stderr.isEmpty, "\(first)")
            // Bob pulls Ann's two budgets; his food budget says what the daemon holds: applied without a change.
            let second = try bob.run(["sync"])
            #expect(second.status == 0 && second.stdout == "pushed 1, pulled 2, conflicts 0\n" && second.stderr.isEmpty, "\(second)")
            let list = try bob.succeed(["budget", "list"], environment: ["LC_ALL": "C"])
            #expect(list.split(separator: "\n").count == 2 && list.contains("rent") && !list.contains("CONFLICT"), "\(list)")
            #expect(try ann.run(["sync"]).stderr.isEmpty)
        }
    }
}

/// `expense recurring …` as a real process.
@Suite struct ExpenseRecurringTests {
    @Test("rules are added, listed, skipped, previewed (month ends clamp or skip, nothing written) and removed")
    func rules() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let env = ["LC_ALL": "C"]
            try expense.succeed(["config", "set", "currency", "EUR"])
            let rent = try expense.succeed(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31",
                                            "--month-end", "skip"]).trimmingCharacters(in: .newlines)
            let gym = try expense.succeed(["recurring", "add", "30", "gym", "--every", "month", "--start", "2026-01-31", "--count", "3"])
                .trimmingCharacters(in: .newlines)
            #expect(UUID(uuidString: rent) != nil && UUID(uuidString: gym) != nil)
            try expense.succeed(["recurring", "skip", String(rent.prefix(6)), "2026-03-31"])
            #expect(try expense.run(["recurring", "skip", String(rent.prefix(6)), "2026-02-28"]).status == 65)
            let before = try expense.succeed(["list", "--json"], environment: env)
            let preview = try expense.succeed(["recurring", "preview", "--until", "2026-05-31"], environment: env)
            let rentShort = String(rent.prefix(8)), gymShort = String(gym.prefix(8))
            #expect(preview == """
                2026-01-31  30.00 EUR  gym  \(gymShort)
                2026-01-31  950.00 EUR  rent  \(rentShort)
                2026-02-28  30.00 EUR  gym  \(gymShort)
                2026-03-31  30.00 EUR  gym  \(gymShort)
                2026-05-31  950.00 EUR  rent  \(rentShort)

                """, "\(preview)")
            #expect(try expense.succeed(["list", "--json"], environment: env) == before)  // a preview writes nothing
            #expect(try expense.run(["recurring", "add", "5", "x", "--every", "fortnight", "--start", "2026-01-01"]).status == 64)
            #expect(try expense.run(["recurring", "add", "5", "x", "--every", "month"]).status == 64)
            try expense.succeed(["recurring", "remove", String(rent.prefix(6))])
            let list = try expense.succeed(["recurring", "list"], environment: env)
            #expect(list == "\(gymShort)  30.00 EUR  gym  every 1 month from 2026-01-31, 3 times\n", "\(list)")
        }
    }
}
