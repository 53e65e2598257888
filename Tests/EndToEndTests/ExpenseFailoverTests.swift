import TestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Several addresses of one ledger with the real binaries (docs/usage.md, "Several addresses"): a dead first address, a
/// daemon killed under a watcher (which carries on through the other address, where the daemon comes back), an
/// address of another ledger refused, and the list's validation.
@Suite(.serialized) struct ExpenseFailoverTests {
    @Test func aListWithADeadAddressSyncsAndAnotherLedgersAddressIsRefused() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let live = try daemon.addressText(), dead = try LoopbackListener.deadAddress(), tokenFile = data + "/default.token"
            let list = "\(dead),\(live)"
            try ann.succeed(["remote", "set", list, "--ledger", "default", "--token-file", tokenFile])
            try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")
            #expect(try ann.succeed(["remote", "show"])
                    == "server \(list)\nledger default\naddress \(dead)\naddress \(live) (last reached)\n")
            try ann.succeed(["add", "3.00", "tea", "--date", "2026-03-02"])
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")

            // An address of another ledger: `remote set` refuses the list; a sync through it alone is refused
            // before anything changes, and with the right daemon beside it the sync goes on there.
            let impostor = try ImpostorDaemon()
            defer { impostor.stop() }
            let refused = try ann.run(["remote", "set", "\(live),\(impostor.address)", "--ledger", "default", "--token-file", tokenFile])
            #expect(refused.status == 64 && refused.stderr.contains("other_ledger"), "\(refused)")
            try ann.succeed(["add", "1.00", "x", "--date", "2026-03-03"])
            let alone = try ann.run(["sync"], environment: ["EXPENSE_SERVER": "\(dead),\(impostor.address)", "EXPENSE_SYNC_ATTEMPTS": "1"])
            #expect(alone.status == 64 && alone.stderr.contains("other_ledger"), "\(alone)")
            #expect(try ann.succeed(["status", "--json"]).contains(#""pending" : 1"#))
            let beside = try ann.run(["sync"], environment: ["EXPENSE_SERVER": "\(impostor.address),\(live)"])
            #expect(beside.status == 0 && beside.stdout == "pushed 1, pulled 0, conflicts 0\n", "\(beside)")
            #expect(try ann.succeed(["list", "--json"]).components(separatedBy: "\"id\"").count - 1 == 3)

            // Lists that are not valid are usage errors naming what is wrong, before anything is stored.
            for (bad, code) in [("\(live),,\(dead)", "empty_address"), ("\(live),\(live)", "duplicate_address"),
                                ("127.0.0.1:70000", "invalid_port"), ("\(live),tls://\(dead)", "mixed_schemes")] {
                let result = try ann.run(["remote", "set", bad, "--ledger", "default", "--token-file", tokenFile])
                #expect(result.status == 64 && result.stderr.contains(code), "\(bad): \(result)")
            }
            let badEnvironment = try ann.run(["sync"], environment: ["EXPENSE_SERVER": "\(live),"])
            #expect(badEnvironment.status == 64 && badEnvironment.stderr.contains("empty_address"), "\(badEnvironment)")
            #expect(try ann.succeed(["remote", "show"]).hasPrefix("server \(list)\n"))
        }
    }

    /// The watcher is connected to the only live address; that daemon is SIGKILLed and comes back on the list's
    /// other port (the same data, so the same ledger): the watcher moves on to it by itself, changes flow both ways,
    /// and nothing is lost or doubled.
    @Test func aWatcherCarriesOnThroughTheOtherAddressWhenItsDaemonIsKilled() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            var daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let first = try daemon.addressText(), second = try LoopbackListener.deadAddress()
            let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let base = ["EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]
            let list = base.merging(["EXPENSE_SERVER": "\(first),\(second)"]) { $1 }
            try bob.succeed(["add", "1", "misc", "--note", "before-watch"], environment: list)
            try bob.succeed(["sync"], environment: list)

            let watcher = try WatcherProcess(client: ann, environment: list)
            defer { _ = watcher.stop(SIGKILL) }
            try #require(eventually { watcher.stderr.contains("watching \(first)") || !watcher.isRunning },
                         "the watcher never watched \(first); stderr: \(watcher.stderr)")
            func annHas(_ note: String) throws -> Bool { try ann.run(["list", "--json"]).stdout.contains(note) }
            func bobHas(_ note: String) throws -> Bool {
                try bob.succeed(["sync"], environment: list)
                return try bob.succeed(["list", "--json"], environment: list).contains(note)
            }
            try bob.succeed(["add", "2", "food", "--note", "from-bob-1"], environment: list)
            try bob.succeed(["sync"], environment: list)
            #expect(try eventually { try annHas("from-bob-1") }, "stderr: \(watcher.stderr)")

            // SIGKILL: no goodbye, the connection just breaks. The same ledger comes back on the other address.
            #expect(daemon.stop(SIGKILL).reason == .uncaughtSignal, "daemon stderr: \(daemon.stderr)")
            daemon = try DaemonProcess(["serve", "--listen", second, "--data", data], scratch: ann.directory)
            try #require(daemon.firstLine == "listening on \(second)", "\(daemon.firstLine ?? "<none>"); \(daemon.stderr)")
            #expect(eventually { watcher.stderr.contains("watching \(second)") || !watcher.isRunning },
                    "the watcher did not move on to \(second); stderr: \(watcher.stderr)")
            try #require(watcher.isRunning, "the watcher ended; stderr: \(watcher.stderr)")
            try bob.succeed(["add", "3", "travel", "--note", "from-bob-2"], environment: list)
            try bob.succeed(["sync"], environment: list)
            #expect(try eventually { try annHas("from-bob-2") }, "stderr: \(watcher.stderr)")
            let added = try ann.run(["add", "4", "books", "--note", "from-ann-1"])
            #expect(added.status == 0, "\(added)")
            #expect(try eventually(pause: .milliseconds(200)) { try bobHas("from-ann-1") }, "stderr: \(watcher.stderr)")

            let exit = watcher.stop(SIGTERM)
            #expect(exit.code == 0 && !exit.timedOut, "\(exit); stderr: \(watcher.stderr)")
            let expected = ["watching ", "disconnected (", "stopped"]
            let unexpected = watcher.stderr.split(separator: "\n").filter { line in !expected.contains { line.hasPrefix($0) } }
            #expect(unexpected.isEmpty, "unexpected stderr lines: \(unexpected)")
            let final = try ann.succeed(["list", "--json"])
            for note in ["before-watch", "from-bob-1", "from-bob-2", "from-ann-1"] {
                #expect(final.components(separatedBy: note).count == 2, "\(note) missing or doubled in A: \(final)")
            }
            #expect(try ann.succeed(["status", "--json"], environment: list).contains(#""pending" : 0"#))
            #expect(try ann.succeed(["remote", "show"], environment: list).contains("address \(second) (last reached)"))
        }
    }
}
