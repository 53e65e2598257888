import TestSupport
import Foundation
import Testing

/// `expense remote/sync/status/conflicts/resolve/summary --server` as processes against a real `expensed`
/// (port 0, temporary data directory, stopped with SIGTERM).
@Suite(.serialized) struct ExpenseSyncCommandTests {
    @Test func twoPeopleSyncConflictAndResolveThroughTheCommands() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText(), tokenFile = data + "/default.token"

            // Before any remote: a clear usage error, nothing lost.
            try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            let none = try ann.run(["sync"])
            #expect(none.status == 64 && none.stderr.contains("no_remote"), "\(none)")

            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            let tokenPath = ann.home + "/token"
            let mode = try FileManager.default.attributesOfItem(atPath: tokenPath)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let shown = try ann.run(["remote", "show"])
            #expect(shown.stdout == "server \(address)\nledger default\n" && !shown.stdout.contains(token) && !shown.stderr.contains(token))

            let list = try ann.run(["list"])
            #expect(list.stderr.contains("1 unsynced change"), "\(list)")
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            #expect(try ann.succeed(["sync"]) == "up to date\n")
            let listed = try ann.run(["list", "--json"])
            #expect(listed.stderr.isEmpty, "\(listed)")

            // Bob needs no stored remote: the environment is enough.
            let environment = ["EXPENSE_SERVER": address, "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]
            let bobSync = try bob.run(["sync", "--json"], environment: environment)
            #expect(bobSync.status == 0)
            #expect(bobSync.stdout.contains(#""pulled":1"#), "\(bobSync)")
            let id = String(try bob.succeed(["list", "--json"]).split(separator: "\"").drop { $0 != "id" }.dropFirst(2).first ?? "")
            #expect(id.count == 36)

            // The same field changed on both sides: Bob, second, gets exit 3 and both sides.
            try ann.succeed(["edit", String(id.prefix(8)), "--amount", "13"])
            try bob.succeed(["edit", String(id.prefix(8)), "--amount", "14"], environment: environment)
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"], environment: environment)
            #expect(conflicted.status == 3 && conflicted.stdout == "pushed 0, pulled 1, conflicts 1\n", "\(conflicted)")
            let status = try bob.run(["status"], environment: environment)
            #expect(status.stdout.contains("conflicts:  1") && status.stdout.contains(String(id.prefix(8))), "\(status)")
            let conflicts = try bob.run(["conflicts", "--json"], environment: environment)
            #expect(conflicts.stdout.contains(#""amount" : 1400"#) && conflicts.stdout.contains(#""amount" : 1300"#), "\(conflicts)")
            let wrongFlags = try bob.run(["resolve", String(id.prefix(8)), "--mine", "--theirs"], environment: environment)
            #expect(wrongFlags.status == 64)
            try bob.succeed(["resolve", String(id.prefix(8)), "--edit", "--amount", "13.50"], environment: environment)
            #expect(try bob.succeed(["sync"], environment: environment) == "pushed 1, pulled 0, conflicts 0\n")
            try ann.succeed(["sync"])
            let server = try ann.succeed(["summary", "--server", "--json"])
            #expect(server.contains(#""amount" : 1350"#), "\(server)")
            // `stats --server`: the daemon's figures equal the local ones after the sync.
            for arguments in [["stats", "--json"], ["stats", "--period", "week", "--by", "category", "--json"]] {
                #expect(try ann.succeed(arguments + ["--server"]) == (try ann.succeed(arguments)), "\(arguments)")
            }

            // Wrong token: 77; the queue is kept.
            try bob.succeed(["add", "1", "x"], environment: environment)
            var wrong = environment
            wrong["EXPENSE_TOKEN"] = "not-the-token"
            let refused = try bob.run(["sync"], environment: wrong)
            #expect(refused.status == 77 && refused.stderr.contains("unauthorized") && !refused.stderr.contains(token), "\(refused)")

            // Daemon gone: 69 after bounded retries, the queue intact. (Its own port, once closed, could be given to
            // another test's daemon; a dead address stays refused.)
            #expect(daemon.stop() == DaemonProcess.Ending(status: 0, reason: .exit))
            let gone = environment.merging(["EXPENSE_SERVER": try LoopbackListener.deadAddress(), "EXPENSE_SYNC_ATTEMPTS": "2"]) { $1 }
            let unreachable = try bob.run(["sync"], environment: gone)
            #expect(unreachable.status == 69 && unreachable.stderr.contains("server_unreachable"), "\(unreachable)")
            #expect(try bob.succeed(["status", "--json"], environment: environment).contains(#""pending" : 1"#))
        }
    }
}
