import TestSupport
import Foundation
import Testing

/// Recurring occurrences materialised by the real `expense` between two caches through a real `expensed`.
@Suite struct ExpenseRecurringRunTests {
    @Test("occurrences are created before the first sync and after, by sync, `recurring run` and read commands, once across two machines; the JSON cache names EXPENSE_STORE")
    func materialised() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            // 2026-03-15 12:00 UTC, then 2026-04-15 12:00 UTC.
            let march = ["EXPENSE_NOW": "1773576000", "LC_ALL": "C", "TZ": "UTC"]
            let april = ["EXPENSE_NOW": "1776254400", "LC_ALL": "C", "TZ": "UTC"]
            try ann.succeed(["config", "set", "currency", "EUR"])
            try ann.succeed(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31"])
            // Never synced: the rent is made offline all the same, and the first sync sends it once.
            let unbound = try ann.run(["recurring", "run"], environment: march)
            #expect(unbound.status == 0 && unbound.stdout.contains("2026-01-31") && unbound.stdout.contains("2026-02-28"), "\(unbound)")
            #expect(try ann.succeed(["recurring", "run"], environment: march).isEmpty)
            for person in [ann, bob] { try person.setRemote(toDefaultLedgerOf: daemon, data: data) }
            let first = try ann.run(["sync"], environment: march)
            #expect(first.status == 0 && first.stdout == "pushed 3, pulled 0, conflicts 0\n", "\(first)")  // the rule and two occurrences
            #expect(!first.stderr.contains("Recurring: created"), "\(first)")
            let second = try bob.run(["sync"], environment: march)
            #expect(second.stdout == "pushed 0, pulled 3, conflicts 0\n" && !second.stderr.contains("Recurring:"), "\(second)")
            #expect(try bob.succeed(["recurring", "run", "--json"], environment: march) == "[]\n")
            // A month later both machines create April's offline (a read command, `recurring run`): one expense after sync.
            let listed = try bob.run(["list"], environment: april)
            #expect(listed.stderr.contains("Recurring: created 1 occurrence due up to today.") && listed.stdout.contains("2026-03-31"), "\(listed)")
            let run = try ann.run(["recurring", "run", "--json"], environment: april)
            #expect(run.status == 0 && run.stdout.contains(#""date" : "2026-03-31""#) && run.stdout.contains(#""amount" : 95000"#), "\(run)")
            for person in [ann, bob, ann] { #expect(try person.run(["sync"], environment: april).status == 0) }
            for person in [ann, bob] {
                let all = try person.succeed(["list", "--json"], environment: april)
                #expect(all.components(separatedBy: #""category" : "rent""#).count - 1 == 3, "\(all)")
            }
            let json = try ann.run(["recurring", "run"], environment: april.merging(["EXPENSE_STORE": "json"]) { a, _ in a })
            #expect(json.status == 1 && json.stderr.contains("unsupported_cache") && json.stderr.contains("EXPENSE_STORE"), "\(json)")
        }
    }
}
