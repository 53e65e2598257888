import TestSupport
import Foundation
import Testing

/// A cache is bound to the ledger's id, not to the address it was reached at (Protocol.md §5.7): `localhost`
/// versus `127.0.0.1`, a new port, a tunnel all serve the same ledger; another ledger is refused `other_ledger`
/// before anything changes.
@Suite(.serialized) struct LedgerBindingTests {
    @Test func anotherAddressOfTheSameLedgerIsAcceptedAndAnotherLedgerRefused() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText(), tokenFile = data + "/default.token"
            let port = try daemon.address().port
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            try ann.succeed(["add", "3.00", "tea", "--date", "2026-03-02"])  // unsynced, must survive everything below

            // The same ledger by another name of the same address.
            let other = "localhost:\(port)"
            let moved = try ann.run(["remote", "set", other, "--ledger", "default", "--token-file", tokenFile])
            #expect(moved.status == 0, "\(moved)")
            #expect(try ann.succeed(["remote", "show"]) == "server \(other)\nledger default\n")
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")

            // Another ledger of the same daemon: refused before anything changes.
            let work = try ann.run(["ledger", "add", "work", "--data", data], executable: ExpenseProcess.daemonExecutable)
            let workToken = work.stdout.trimmingCharacters(in: .newlines)
            try ann.succeed(["add", "1.00", "x", "--date", "2026-03-03"])
            let refused = try ann.run(["remote", "set", address, "--ledger", "work", "--token", workToken])
            #expect(refused.status == 64 && refused.stderr.contains("other_ledger"), "\(refused)")
            #expect(try ann.succeed(["remote", "show"]) == "server \(other)\nledger default\n")
            let viaEnvironment = try ann.run(["sync"], environment: ["EXPENSE_LEDGER": "work", "EXPENSE_TOKEN": workToken])
            #expect(viaEnvironment.status == 64 && viaEnvironment.stderr.contains("other_ledger"), "\(viaEnvironment)")
            #expect(try ann.succeed(["status", "--json"]).contains(#""pending" : 1"#))
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.components(separatedBy: "\"id\"").count - 1 == 3, "\(listed)")

            // An address that cannot be asked now is stored with a warning; the next sync checks it.
            let unreachable = try ann.run(["remote", "set", "127.0.0.1:1", "--ledger", "default", "--token-file", tokenFile])
            #expect(unreachable.status == 0 && unreachable.stderr.contains("Warning: could not ask 127.0.0.1:1"), "\(unreachable)")
            let down = try ann.run(["sync"], environment: ["EXPENSE_SYNC_ATTEMPTS": "1"])
            #expect(down.status == 69, "\(down)")
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            #expect(try ann.succeed(["sync"]) == "up to date\n")
        }
    }
}
