import TestSupport
import Foundation
import ProcessSpawn
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `expense sync --watch` as a real long-lived process against a real `expensed` (port 0, temporary data
/// directory): other clients' changes land in the watcher's cache without running it again, its own local
/// changes go out, it survives a daemon restart, it stays idle while idle, and SIGTERM stops it cleanly.
@Suite(.serialized) struct ExpenseWatchTests {
    @Test func watcherAppliesChangesPushesLocalOnesAndSurvivesADaemonRestart() throws {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        let data = ann.directory + "/data"
        var daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
        defer { _ = daemon.stop() }
        let address = try daemon.addressText()
        let port = try #require(address.split(separator: ":").last.flatMap { Int($0) })
        let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = ["EXPENSE_SERVER": address, "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]

        // Something to pull on the first sync, so the watcher starts from a non-empty cache.
        try bob.succeed(["add", "1", "misc", "--note", "before-watch"], environment: environment)
        try bob.succeed(["sync"], environment: environment)

        let watcher = try WatcherProcess(client: ann, environment: environment)
        defer { _ = watcher.stop(SIGKILL) }
        let watching = { (count: Int) in watcher.stderr.components(separatedBy: "watching ").count - 1 >= count }
        #expect(eventually { watching(1) || !watcher.isRunning },
                "the watcher never said it was watching; stderr: \(watcher.stderr)")
        try #require(watcher.isRunning, "the watcher ended; stderr: \(watcher.stderr)")
        try #require(try ann.succeed(["list", "--json"]).contains("before-watch"), "the first sync did not pull")
        let idleFrom = (MonotonicClock.now(), try #require(watcher.cpuSeconds()))

        /// Whether `note` is in A's cache, read by a separate `expense list --json` while the watcher runs.
        func annHas(_ note: String) throws -> Bool {
            let listed = try ann.run(["list", "--json"])
            #expect(listed.status == 0, "list beside the watcher failed: \(listed)")
            return listed.stdout.contains(note)
        }
        /// Whether `note` reached B after one more `expense sync`.
        func bobHas(_ note: String) throws -> Bool {
            try bob.succeed(["sync"], environment: environment)
            return try bob.succeed(["list", "--json"], environment: environment).contains(note)
        }

        // 1. B's change reaches A's cache without A being run again.
        try bob.succeed(["add", "12.50", "food", "--note", "from-bob-1"], environment: environment)
        try bob.succeed(["sync"], environment: environment)
        #expect(try eventually { try annHas("from-bob-1") },
                "B's expense never reached the watcher's cache in 20 s; watcher stderr: \(watcher.stderr)")

        // 2. A local change made while watching (another process writing the cache) goes out by itself.
        let added = try ann.run(["add", "3", "books", "--note", "from-ann-1"])
        #expect(added.status == 0, "add beside the watcher failed: \(added)")
        #expect(try eventually(pause: .milliseconds(200)) { try bobHas("from-ann-1") },
                "A's local change never reached B in 20 s; watcher stderr: \(watcher.stderr)")

        // 3. The daemon restarts on the same data directory and port: the watcher reconnects by itself.
        #expect(daemon.stop() == DaemonProcess.Ending(status: 0, reason: .exit), "daemon stderr: \(daemon.stderr)")
        daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:\(port)", "--data", data], scratch: ann.directory)
        try #require(daemon.firstLine == "listening on 127.0.0.1:\(port)",
                     "the daemon did not restart on port \(port): \(daemon.firstLine ?? "<none>"); stderr: \(daemon.stderr)")
        #expect(eventually { watching(2) || !watcher.isRunning },
                "the watcher did not reconnect in 20 s; stderr: \(watcher.stderr)")
        try #require(watcher.isRunning, "the watcher ended at the restart; stderr: \(watcher.stderr)")
        try bob.succeed(["add", "7", "travel", "--note", "from-bob-2"], environment: environment)
        try bob.succeed(["sync"], environment: environment)
        #expect(try eventually { try annHas("from-bob-2") },
                "B's expense after the restart never reached the watcher in 20 s; stderr: \(watcher.stderr)")
        let added2 = try ann.run(["add", "4", "books", "--note", "from-ann-2"])
        #expect(added2.status == 0, "\(added2)")
        #expect(try eventually(pause: .milliseconds(200)) { try bobHas("from-ann-2") },
                "A's change after the restart never reached B in 20 s; watcher stderr: \(watcher.stderr)")

        // 4. No busy loop: waiting for changes costs (almost) no CPU. A tight loop would use most of a core.
        let idleTo = (MonotonicClock.now(), try #require(watcher.cpuSeconds()))
        let share = (idleTo.1 - idleFrom.1) / max(idleTo.0 - idleFrom.0, 0.001)
        #expect(share < 0.2, "the watcher used \(idleTo.1 - idleFrom.1) s of CPU in \(idleTo.0 - idleFrom.0) s")

        // 5. SIGTERM: a clean exit 0, nothing but the expected lines on stderr.
        let exit = watcher.stop(SIGTERM)
        #expect(exit.code == 0 && !exit.timedOut, "the watcher ended with \(exit); stderr: \(watcher.stderr)")
        let expected = ["watching ", "disconnected (", "stopped"]
        let unexpected = watcher.stderr.split(separator: "\n").filter { line in !expected.contains { line.hasPrefix($0) } }
        #expect(unexpected.isEmpty, "unexpected stderr lines: \(unexpected)")
        #expect(watcher.stderr.contains("disconnected ("), "the restart went unnoticed? stderr: \(watcher.stderr)")
        let final = try ann.succeed(["list", "--json"])
        for note in ["before-watch", "from-bob-1", "from-ann-1", "from-bob-2", "from-ann-2"] {
            #expect(final.contains(note), "\(note) missing from A after the watch: \(final)")
        }
        let status = try ann.succeed(["status", "--json"], environment: environment)
        #expect(status.contains(#""pending" : 0"#), "A still has unsynced changes: \(status)")
    }

    /// Under `expensed --idle-timeout 3` a watcher that pings every quarter second keeps its one connection, and
    /// still gets changes. Without the pings the daemon would close it after 3 s (`disconnected` on stderr). The
    /// margin is wide (a 2.75 s stall would be needed to miss) because the whole suite shares two cores.
    @Test func watcherPingsToStayConnectedUnderAnIdleTimeout() throws {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        let data = ann.directory + "/data"
        let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory, ["--idle-timeout", "3"])
        defer { _ = daemon.stop() }
        let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = ["EXPENSE_SERVER": try daemon.addressText(), "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]
        let watcher = try WatcherProcess(client: ann, environment: environment.merging(["EXPENSE_WATCH_PING": "0.25"]) { $1 })
        defer { _ = watcher.stop(SIGKILL) }
        try #require(eventually { watcher.stderr.contains("watching ") || !watcher.isRunning },
                     "the watcher never said it was watching; stderr: \(watcher.stderr)")
        // More than an idle timeout of quiet: the daemon would have closed a silent connection by now.
        let dropped = eventually(timeout: .seconds(4)) { watcher.stderr.contains("disconnected") || !watcher.isRunning }
        #expect(!dropped, "the idle watcher lost its connection; stderr: \(watcher.stderr)")
        try bob.succeed(["add", "2", "misc", "--note", "while-idle"], environment: environment)
        try bob.succeed(["sync"], environment: environment)
        #expect(try eventually { try ann.run(["list", "--json"]).stdout.contains("while-idle") },
                "B's expense never reached the idle watcher; stderr: \(watcher.stderr)")
        let exit = watcher.stop(SIGTERM)
        #expect(exit.code == 0, "the watcher ended with \(exit); stderr: \(watcher.stderr)")
    }

    /// `sync --watch --json` prints each round that moved something as the `sync --json` object, one per line, with
    /// exactly its keys (docs/usage.md, "Sync"): a script can follow a watcher as it follows one sync.
    @Test func watcherWithJSONPrintsOneSyncObjectPerRound() throws {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        let data = ann.directory + "/data"
        let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
        defer { _ = daemon.stop() }
        let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = ["EXPENSE_SERVER": try daemon.addressText(), "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token]
        try bob.succeed(["add", "1", "misc", "--note", "before-watch"], environment: environment)
        try bob.succeed(["sync"], environment: environment)
        let watcher = try WatcherProcess(client: ann, environment: environment, arguments: ["sync", "--watch", "--json"])
        defer { _ = watcher.stop(SIGKILL) }
        try #require(eventually { watcher.stderr.contains("watching ") || !watcher.isRunning },
                     "the watcher never said it was watching; stderr: \(watcher.stderr)")
        try bob.succeed(["add", "2", "misc", "--note", "while-watching"], environment: environment)
        try bob.succeed(["sync"], environment: environment)
        #expect(eventually { watcher.stdout.split(separator: "\n").count >= 2 || !watcher.isRunning },
                "the watcher printed no second round; stdout: \(watcher.stdout) stderr: \(watcher.stderr)")
        let exit = watcher.stop(SIGTERM)
        #expect(exit.code == 0, "the watcher ended with \(exit); stderr: \(watcher.stderr)")
        let lines = watcher.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "expected one line per round: \(watcher.stdout)")
        let keys = ["pushed", "pulled", "newConflicts", "openConflicts", "newRejections", "openRejections", "pending", "cursor"]
        for (line, cursor) in zip(lines, [1, 2]) {
            #expect(line == #"{"pushed":0,"pulled":1,"newConflicts":0,"openConflicts":0,"newRejections":0,"#
                    + #""openRejections":0,"pending":0,"cursor":\#(cursor)}"#, "round line: \(line)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == Set(keys))
        }
    }
}
