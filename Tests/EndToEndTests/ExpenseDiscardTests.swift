import TestSupport
import Foundation
import Testing

/// Rejected and unwanted local changes can be dropped (`expense discard`, `resolve --theirs` on a rejection),
/// and one file imported on two machines converges to one copy, against a real `expensed`.
@Suite(.serialized) struct ExpenseDiscardTests {
    /// A CSV of `count` identical USD rows of the largest amount: 1024 of them sum to 2^63 − 1024, which fits.
    static func largestAmounts(_ count: Int) -> String {
        "date,amount,currency,category,note\n" + String(repeating: "2026-02-01,90071992547409.91,USD,big,\n", count: count)
    }

    @Test func aRejectedChangeIsDroppedByResolveTheirsOrDiscard() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let environment = try daemon.defaultLedgerEnvironment(data: data)

            let imported = try ann.run(["import", "-"], stdin: Self.largestAmounts(1024))
            #expect(imported.status == 0, "\(imported)")
            // Locally too, the USD total must fit: the error names the currency, and nothing is stored.
            let overflow = try ann.run(["add", "11", "food"])
            #expect(overflow.status == 65 && overflow.stderr.hasPrefix("Error: amount_overflow: the total of all USD expenses"),
                    "\(overflow)")
            try ann.succeed(["add", "11", "food", "--currency", "EUR"])
            try ann.succeed(["sync"], environment: environment)

            // Bob's two adds would take the daemon's USD total past Int64.max: both are rejected.
            let first = try bob.succeed(["add", "11", "food", "--date", "2026-02-02"], environment: environment)
                .trimmingCharacters(in: .newlines)
            try bob.succeed(["add", "12", "food", "--date", "2026-02-03"], environment: environment)
            let synced = try bob.run(["sync"], environment: environment)
            #expect(synced.status == 65 && synced.stderr.contains("the daemon rejected 2:") && synced.stderr.contains("expense discard --rejected"), "\(synced)")

            let resolved = try bob.run(["resolve", String(first.prefix(8)), "--theirs"], environment: environment)
            #expect(resolved.status == 0, "\(resolved)")
            let status = try bob.succeed(["status", "--json"], environment: environment)
            #expect(status.contains("\"rejected\" : 1"), "\(status)")

            let discarded = try bob.run(["discard", "--rejected"], environment: environment)
            #expect(discarded.status == 0 && discarded.stderr.contains("Discarded new") && discarded.stderr.contains("12.00 USD food"),
                    "\(discarded)")
            #expect(try bob.succeed(["status", "--json"], environment: environment).contains("\"pending\" : 0"))
            let summary = try bob.run(["summary", "--json"], environment: environment)
            #expect(summary.status == 0 && summary.stdout.contains("9223372036854774784"), "\(summary)")
            #expect(try bob.succeed(["sync"], environment: environment) == "up to date\n")
        }
    }

    @Test func discardDropsALocalEditAndLeavesTheServersCopy() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let environment = try daemon.defaultLedgerEnvironment(data: data)
            let id = try ann.succeed(["add", "5", "food", "--date", "2026-03-01"], environment: environment).trimmingCharacters(in: .newlines)
            let local = try ann.succeed(["add", "6", "local", "--date", "2026-03-02"], environment: environment).trimmingCharacters(in: .newlines)
            try ann.succeed(["discard", local], environment: environment)
            try ann.succeed(["sync"], environment: environment)
            try ann.succeed(["edit", id, "--amount", "7"], environment: environment)
            try ann.succeed(["delete", id], environment: environment)
            let dropped = try ann.run(["discard", String(id.prefix(6))], environment: environment)
            #expect(dropped.status == 0 && dropped.stdout == id + "\n", "\(dropped)")
            #expect(dropped.stderr.contains("Discarded deleted \(id.prefix(8))"), "\(dropped)")
            let listed = try ann.succeed(["list", "--json"], environment: environment)
            #expect(listed.contains("\"amount\" : 500") && !listed.contains("local"), "\(listed)")
            #expect(try ann.succeed(["sync"], environment: environment) == "up to date\n")
            let server = try ann.succeed(["summary", "--server", "--json"], environment: environment)
            #expect(server.contains("\"amount\" : 500"), "\(server)")
            let nothing = try ann.run(["discard", id], environment: environment)
            #expect(nothing.status == 1 && nothing.stderr.contains("nothing_to_discard"), "\(nothing)")
        }
    }

    @Test func oneFileImportedOnTwoMachinesConvergesToOneCopy() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let environment = try daemon.defaultLedgerEnvironment(data: data)
            let bank = "date,amount,currency,category,note\n2026-04-01,3.20,USD,tea,\n2026-04-01,3.20,USD,tea,\n2026-04-02,9,USD,book,\n"
            _ = try ann.run(["import", "-"], environment: environment, stdin: bank)
            _ = try bob.run(["import", "-"], environment: environment, stdin: bank)
            try ann.succeed(["sync"], environment: environment)
            let bobSync = try bob.run(["sync"], environment: environment)
            #expect(bobSync.status == 0, "\(bobSync)")
            try ann.succeed(["sync"], environment: environment)
            let server = try ann.succeed(["summary", "--server", "--json"], environment: environment)
            #expect(server.contains("\"amount\" : 1540") && server.contains("\"count\" : 3"), "\(server)")
            #expect(try ann.succeed(["list", "--json"], environment: environment) == bob.succeed(["list", "--json"], environment: environment))
        }
    }
}
