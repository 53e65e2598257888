import TestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One `expensed serve` per data directory: a second one refuses to start (exit 75, naming the directory and the
/// pid holding it) and the first serves on, while `ledger add`, `ledger list` and `backup` work beside it.
@Suite struct DataDirectoryLockTests {
    private static let daemon = ExpenseProcess.daemonExecutable

    @Test func aSecondServeOnOneDirectoryRefusesToStartAndTheFirstServesOn() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let first = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)

            let second = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--data", data], scratch: scratch.directory)
            #expect(second.firstLine == nil, "a second daemon started on one data directory")
            let exit = second.waitForExit()
            #expect(exit.reason == .exit && exit.status == 75, "\(second.stderr)")
            #expect(second.stderr.contains(data), "the error does not name the directory: \(second.stderr)")
            #expect(second.stderr.contains("pid \(first.pid)"), "the error does not name the holder: \(second.stderr)")

            // Beside the running daemon: ledger add, ledger list and backup work.
            let added = try scratch.run(["ledger", "add", "work", "--data", data], executable: Self.daemon)
            #expect(added.status == 0, "\(added)")
            let list = try scratch.run(["ledger", "list", "--data", data], executable: Self.daemon)
            #expect(list.status == 0 && list.stdout == "default USD\nwork USD\n", "\(list)")
            let backup = try scratch.run(["backup", "--data", data, "--ledger", "default", scratch.directory + "/b.sqlite"],
                                         executable: Self.daemon)
            #expect(backup.status == 0, "\(backup)")

            // The first daemon still serves and writes.
            let client = try WireClient(try first.address())
            _ = try client.hello(token: token)
            #expect(try client.pushCreates(count: 3, firstMutationId: 1).count == 3)
            client.close()
            #expect(first.stop().status == 0)

            // Once it stopped, the directory is free again.
            let third = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            #expect(third.stop().status == 0)
        }
    }

    @Test func helpDocumentsTheLockExitCode() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let help = try scratch.run(["serve", "--help"], executable: Self.daemon).stdout
            #expect(help.contains(" 75  "), "serve --help lacks exit code 75: \(help)")
        }
    }
}
