import Foundation
import Testing
import TestSupport

/// A push whose answer a dropped connection lost, with the real `expense` and `expensed` processes: the daemon
/// applied it; the next `sync` learns so from the `duplicate`'s original outcome (Protocol.md §5.2) and shows no
/// conflict on the person's own change, whatever happened to the expense since.
@Suite(.serialized) struct ExpenseLostAnswerCommandTests {
    @Test func anAppliedPushWhoseAnswerWasDroppedIsNoConflictAfterAnotherPersonsCorrection() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let proxy = try AnswerDroppingProxy(forwardingTo: try daemon.address().port)
            defer { proxy.stop() }
            let tokenFile = data + "/default.token"
            let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            try ann.succeed(["remote", "set", proxy.address, "--ledger", "default", "--token-file", tokenFile])
            let bobs = ["EXPENSE_SERVER": try daemon.addressText(), "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]

            try ann.succeed(["add", "10.00", "food", "--date", "2026-03-01"])
            try ann.succeed(["sync"])
            try bob.succeed(["sync"], environment: bobs)
            let id = String(try bob.succeed(["list", "--json"], environment: bobs).split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first ?? "")
            #expect(id.count == 36)

            // Ann's edit reaches the daemon; the connection drops before its answer: exit 69, still pending.
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "11"])
            proxy.dropNextPushAnswer()
            let cut = try ann.run(["sync"], environment: ["EXPENSE_SYNC_ATTEMPTS": "1"])
            #expect(cut.status == 69 && proxy.droppedCount == 1, "\(cut)")

            // Bob sees it and corrects the same field on purpose.
            try bob.succeed(["sync"], environment: bobs)
            try bob.succeed(["edit", String(id.prefix(8)), "--amount", "12"], environment: bobs)
            let corrected = try bob.succeed(["sync"], environment: bobs)
            #expect(corrected.hasPrefix("pushed 1,") && corrected.hasSuffix("conflicts 0\n"), "\(corrected)")

            let synced = try ann.run(["sync"])
            #expect(synced.status == 0 && synced.stdout.hasSuffix("conflicts 0\n"), "\(synced)")
            let conflicts = try ann.run(["conflicts", "--json"])
            #expect(!conflicts.stdout.contains(id), "\(conflicts)")
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.contains(#""amount" : 1200"#), "\(listed)")
            let server = try ann.succeed(["summary", "--server", "--json"])
            #expect(server.contains(#""amount" : 1200"#), "\(server)")
        }
    }
}
