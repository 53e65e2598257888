import TestSupport
import Foundation
import Testing

/// A budget conflict in `expense conflicts` and settled by `expense resolve`, with the real binaries and daemon.
@Suite struct DataConflictCommandTests {
    @Test("a budget set to two amounts offline is listed by `conflicts` (text and JSON) and settled by `resolve --mine`")
    func budgetConflict() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let env = ["LC_ALL": "C"]
            let id = try ann.succeed(["budget", "set", "food", "300", "--currency", "EUR", "--start", "2026-01-01"])
                .trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            try ann.succeed(["budget", "set", "food", "400", "--currency", "EUR", "--from", "2026-01-01"])
            try bob.succeed(["budget", "set", "food", "450", "--currency", "EUR", "--from", "2026-01-01"])
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let listed = try bob.run(["conflicts"], environment: env)
            #expect(listed.status == 0 && listed.stdout.hasPrefix("\(id)  budget\n") && listed.stdout.contains("amounts"), "\(listed)")
            // Both amounts in full, as money: the two sides never print alike.
            #expect(listed.stdout.contains("450.00") && listed.stdout.contains("400.00"), "\(listed)")
            let json = try bob.succeed(["conflicts", "--json"])
            #expect(json.contains(#""record" : "budget""#) && json.contains(id), "\(json)")
            #expect(try bob.run(["resolve", String(id.prefix(8)), "--edit", "--note", "x"]).status == 64)
            let resolved = try bob.run(["resolve", String(id.prefix(8)), "--mine"])
            #expect(resolved.status == 0 && resolved.stderr.contains("Resolved the budget conflict"), "\(resolved)")
            #expect(try bob.run(["conflicts"]).stderr == "No conflicts.\n")
            try bob.succeed(["sync"])
            try ann.succeed(["sync"])
            #expect(try ann.succeed(["budget", "list"], environment: env).contains("450.00"))
        }
    }
}
