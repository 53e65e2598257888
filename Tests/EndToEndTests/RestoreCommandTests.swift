import TestSupport
import ExpenseProtocol
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `expensed restore FILE --ledger NAME`: refused while a daemon serves the directory (75); once it is stopped, the
/// backup replaces the ledger with the same `ledgerId` and a new `epoch` (Protocol.md §5.7).
@Suite struct RestoreCommandTests {
    private static let daemon = ExpenseProcess.daemonExecutable

    @Test func restoreIsRefusedWhileServingThenReplacesTheLedgerWithANewEpoch() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let file = scratch.directory + "/backup.sqlite"
            var daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
            var client = try WireClient(try daemon.address())
            let before = try #require(try client.hello(token: token).identity)
            _ = try client.pushCreates(count: 2, firstMutationId: 1)
            let backup = try scratch.run(["backup", "--data", data, "--ledger", "default", file], executable: Self.daemon)
            #expect(backup.status == 0, "\(backup)")
            _ = try client.pushCreates(count: 3, firstMutationId: 3)
            let clientId = client.clientId
            client.close()

            let refused = try scratch.run(["restore", file, "--ledger", "default", "--data", data], executable: Self.daemon)
            #expect(refused.status == 75, "\(refused)")
            #expect(refused.stderr.contains("data_directory_in_use") && refused.stderr.contains(data), "\(refused)")
            #expect(daemon.stop().status == 0)

            let wrong = try scratch.run(["restore", scratch.directory + "/none.sqlite", "--ledger", "default", "--data", data],
                                        executable: Self.daemon)
            #expect(wrong.status == 65 && wrong.stderr.contains("invalid_backup"), "\(wrong)")

            let restored = try scratch.run(["restore", file, "--ledger", "default", "--data", data], executable: Self.daemon)
            #expect(restored.status == 0 && restored.stdout == "", "\(restored)")
            #expect(restored.stderr.contains("restored ledger 'default'") && restored.stderr.contains("2 records"), "\(restored)")

            daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            client = try WireClient(try daemon.address())
            let hello = try client.hello(token: token, clientId: clientId)
            let after = try #require(hello.identity)
            #expect(after.ledgerId == before.ledgerId)
            #expect(after.epoch != before.epoch)
            #expect(after.epochCursor == 2 && hello.cursor == 2 && hello.lastMutationId == 2)
            #expect(try client.pullAll().count == 2)
            client.close()
            #expect(daemon.stop().status == 0)
        }
    }
}
