import TestSupport
import Foundation
import Testing

/// Money is one value (Protocol.md §7.4), with real `expense` and `expensed` processes.
@Suite(.serialized) struct ExpenseMoneySyncTests {
    /// 5.00 EUR; Ann makes it 500 JPY (the same minor-unit digits), Bob makes it 7.50 EUR. Bob, second, gets a
    /// conflict (exit 3), never 750 JPY; `--mine` gives his whole pair.
    @Test func currencyAgainstAmountIsAConflictNever750Yen() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["add", "5.00", "food", "--currency", "EUR", "--date", "2026-03-01"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let prefix = String(id.prefix(8))
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])

            try ann.succeed(["edit", prefix, "--currency", "JPY", "--amount", "500"])
            try bob.succeed(["edit", prefix, "--amount", "7.50"])
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout == "pushed 0, pulled 1, conflicts 1\n", "\(conflicted)")
            let server = try bob.succeed(["summary", "--server", "--json"])
            #expect(server.contains(#""currency" : "JPY""#) && server.contains(#""amount" : 500"#), "\(server)")
            #expect(!server.contains("EUR"), "\(server)")

            try bob.succeed(["resolve", prefix, "--mine"])
            #expect(try bob.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            try ann.succeed(["sync"])
            for person in [ann, bob] {
                let listed = try person.succeed(["list", "--json"])
                #expect(listed.contains(#""amount" : 750"#) && listed.contains(#""currency" : "EUR""#), "\(listed)")
                #expect(!listed.contains("JPY"), "\(listed)")
            }
        }
    }
}
