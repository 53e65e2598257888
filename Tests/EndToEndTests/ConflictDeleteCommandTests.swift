import TestSupport
import Foundation
import Testing

/// `expense delete` of an expense whose own conflict is open, through the commands against a real `expensed`.
@Suite(.serialized) struct ConflictDeleteCommandTests {
    @Test func aDeleteMadeHereIsNeverShownAsDeletedThere() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01"]).trimmingCharacters(in: .whitespacesAndNewlines)
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            let short = String(id.prefix(8))
            try ann.succeed(["edit", short, "--category", "meals"])
            try bob.succeed(["edit", short, "--category", "dining"])
            try ann.succeed(["sync"])
            #expect(try bob.run(["sync"]).status == 3)

            // Bob deletes the expense while its conflict is open: the delete supersedes his edit.
            try bob.succeed(["delete", short])
            let before = try bob.run(["conflicts"])
            #expect(before.status == 0 && before.stdout.isEmpty && before.stderr.contains("No conflicts."), "\(before)")
            let synced = try bob.run(["sync"])
            #expect(synced.status == 0, "\(synced)")
            let after = try bob.run(["conflicts"])
            #expect(!after.stdout.contains("deleted there"), "\(after)")
            #expect(after.status == 0 && after.stdout.isEmpty && after.stderr.contains("No conflicts."), "\(after)")
            // `resolve --mine` has nothing to revive.
            #expect(try bob.run(["resolve", short, "--mine"]).status == 1)
            try ann.succeed(["sync"])
            #expect(!(try ann.succeed(["list"])).contains("meals"))
            #expect(!(try bob.succeed(["list"])).contains("dining"))
        }
    }
}
