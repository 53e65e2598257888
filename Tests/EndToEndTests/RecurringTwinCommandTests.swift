import TestSupport
import Foundation
import Testing

/// The second machine of docs/usage.md ("recurring") enters the rent the first one already has: the real `expense` on two caches and a
/// real `expensed`. The rent is charged once a month while the twins are open; `merge` and `keep-both` settle it.
@Suite struct RecurringTwinCommandTests {
    // 2026-03-15 12:00 UTC.
    private static let march = ["EXPENSE_NOW": "1773576000", "LC_ALL": "C", "TZ": "UTC"]

    /// Ann's rent rule, synced with its January and February occurrences; Bob, never synced, enters the same rule.
    private static func twoRents() throws -> (ExpenseProcess, ExpenseProcess, DaemonProcess, String, String) {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
        for person in [ann, bob] { try person.succeed(["config", "set", "currency", "EUR"]) }
        let first = try ann.succeed(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31"],
                                    environment: ["EXPENSE_NOW": "1767225600"]).trimmingCharacters(in: .newlines)
        #expect(try ann.run(["sync"], environment: march).status == 0)
        let second = try bob.succeed(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31"],
                                     environment: march).trimmingCharacters(in: .newlines)
        return (ann, bob, daemon, first, second)
    }

    private static func serverRent(_ person: ExpenseProcess) throws -> String {
        try person.succeed(["summary", "--server", "--json"], environment: march)
    }

    @Test func theSameRentOnASecondMachineIsChargedOnceAndShownAsPossibleTwins() async throws {
        try await onOwnThread {
            let (ann, bob, daemon, first, second) = try Self.twoRents()
            defer { _ = daemon.stop() }
            for _ in 0..<2 {
                for person in [bob, ann] { #expect(try person.run(["sync"], environment: Self.march).status == 0) }
            }
            // Two occurrences (Jan 31, Feb 28) of 950.00: 1900.00, not 3800.00.
            let totals = try Self.serverRent(bob)
            #expect(totals.contains("\"amount\" : 190000") && !totals.contains("380000"), "\(totals)")
            for person in [ann, bob] {
                let list = try person.run(["recurring", "list"], environment: Self.march)
                #expect(list.stdout.contains("possible twin of \(first.prefix(8))") && list.stdout.contains("(held)"), "\(list)")
                #expect(list.stderr.contains("keep-both"), "\(list)")
                #expect(try person.succeed(["status"], environment: Self.march).contains("twin rules: 1"))
                #expect(try person.succeed(["conflicts"], environment: Self.march).contains("possible twins"))
            }
            // One charge entered twice: merge keeps Ann's rule; nothing was charged twice, so nothing is deleted.
            let merged = try bob.run(["recurring", "merge", String(first.prefix(8)), String(second.prefix(8))], environment: Self.march)
            #expect(merged.status == 0 && merged.stderr.contains("removed it and 0 occurrences"), "\(merged)")
            for person in [bob, ann, bob] { #expect(try person.run(["sync"], environment: Self.march).status == 0) }
            #expect(try Self.serverRent(ann).contains("\"amount\" : 190000"))
            let listed = try ann.succeed(["recurring", "list", "--json"], environment: Self.march)
            #expect(!listed.contains(second) && listed.contains("\"held\" : false"), "\(listed)")
        }
    }

    @Test func twoChargesThatLookTheSameAreKeptBoth() async throws {
        try await onOwnThread {
            let (ann, bob, daemon, first, second) = try Self.twoRents()
            defer { _ = daemon.stop() }
            #expect(try bob.run(["sync"], environment: Self.march).status == 0)
            let kept = try bob.run(["recurring", "keep-both", String(first.prefix(8)), String(second.prefix(8))], environment: Self.march)
            #expect(kept.status == 0, "\(kept)")
            for person in [bob, ann, bob] { #expect(try person.run(["sync"], environment: Self.march).status == 0) }
            #expect(try Self.serverRent(ann).contains("\"amount\" : 380000"))
            #expect(!(try ann.succeed(["status"], environment: Self.march)).contains("twin rules"))
            // A pair that does not look the same is refused.
            let other = try ann.succeed(["recurring", "add", "10", "music", "--every", "month", "--start", "2026-01-01"],
                                        environment: Self.march).trimmingCharacters(in: .newlines)
            let refused = try ann.run(["recurring", "merge", String(first.prefix(8)), String(other.prefix(8))], environment: Self.march)
            #expect(refused.status == 65 && refused.stderr.contains("not_twins"), "\(refused)")
        }
    }

    @Test func addingTheSameRuleAgainWarnsAndChargesNothingTwice() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            try ann.succeed(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31"], environment: Self.march)
            let again = try ann.run(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-01-31"], environment: Self.march)
            #expect(again.status == 0 && again.stderr.contains("Warning: this rule looks the same as"), "\(again)")
            let list = try ann.succeed(["list", "--json"], environment: Self.march)
            #expect(list.components(separatedBy: "\"category\" : \"rent\"").count - 1 == 2, "\(list)")
        }
    }
}
