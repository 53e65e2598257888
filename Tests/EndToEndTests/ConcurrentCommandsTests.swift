import TestSupport
import Foundation
import ProcessSpawn
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Many real `expense` processes on one home, for each kind of cache (docs/reliability.md, "Many commands on
/// one home"): parallel adds, adds while a sync waits for the daemon, adds while `sync --watch` runs, and two
/// syncs at once. No command may lose another's write. Serialized: each case starts many processes already.
@Suite(.serialized) struct ConcurrentCommandsTests {
    static let stores = ["json", "sqlite"]

    /// A daemon with ledger `default`, and the environment that points a client at `address` (the daemon's own
    /// address unless a proxy stands between).
    final class Setup {
        let ann: ExpenseProcess
        let bob: ExpenseProcess
        let daemon: DaemonProcess
        let daemonAddress: String
        let token: String
        let store: String

        init(store: String) throws {
            self.store = store
            ann = try ExpenseProcess()
            bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            daemonAddress = try daemon.addressText()
            token = try String(contentsOfFile: data + "/default.token", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func environment(address: String? = nil) -> [String: String] {
            ["EXPENSE_SERVER": address ?? daemonAddress, "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token,
             "EXPENSE_STORE": store]
        }

        /// The notes of A's cache (or B's, after a sync of B), read by `expense list --json`.
        func notes(_ client: ExpenseProcess) throws -> [String] {
            let listed = try client.succeed(["list", "--json"], environment: environment())
            let rows = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] ?? []
            return rows.compactMap { $0["note"] as? String }
        }

        func pending(_ client: ExpenseProcess) throws -> Int {
            let status = try client.succeed(["status", "--json"], environment: environment())
            let body = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
            return body?["pending"] as? Int ?? -1
        }
    }

    /// Starts `expense ARGS…` without waiting for it.
    static func spawn(_ client: ExpenseProcess, _ arguments: [String], environment extra: [String: String],
                      name: String) throws -> (ChildProcess, String, String) {
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = client.home
        for (key, value) in extra { environment[key] = value }
        let out = client.directory + "/\(name).out", err = client.directory + "/\(name).err"
        let (child, _, _) = try ChildProcess.spawn(ExpenseProcess.executable, arguments, environment: environment,
                                                   stdout: .file(out), stderr: .file(err))
        return (child, out, err)
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test(arguments: stores) func parallelAddsAllLand(store: String) async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            let environment = ["EXPENSE_STORE": store]
            // A fresh home: the first processes race to create the cache, too.
            let children = try (1...10).map { index in
                try Self.spawn(client, ["add", "1", "food", "--note", "parallel-\(index)"], environment: environment,
                               name: "add-\(index)")
            }
            for (index, (child, _, err)) in children.enumerated() {
                let exit = child.wait(timeout: 120)
                #expect(exit.code == 0, "add \(index + 1) ended with \(exit): \(Self.text(err))")
            }
            let listed = try client.succeed(["list", "--json"], environment: environment)
            for index in 1...10 {
                #expect(listed.contains("\"parallel-\(index)\""), "parallel-\(index) was lost (\(store)): \(listed)")
            }
            let status = try client.succeed(["status", "--json"], environment: environment)
            #expect(status.contains(#""pending" : 10"#), "\(status)")
        }
    }

    /// Adds made while a sync waits for its `pull` answer: they are kept locally, reach the daemon (the sync's
    /// next round or the next sync sends them), and the report's `pending` is what `status` says. Each add
    /// returns without waiting for the sync; their times are printed.
    @Test(arguments: stores) func addsDuringASyncAreKeptAndSent(store: String) async throws {
        try await onOwnThread {
            let setup = try Setup(store: store)
            defer { _ = setup.daemon.stop() }
            try setup.bob.succeed(["add", "2", "misc", "--note", "from-bob"], environment: setup.environment())
            try setup.bob.succeed(["sync"], environment: setup.environment())
            try setup.ann.succeed(["add", "1", "misc", "--note", "before-sync"], environment: setup.environment())

            let proxy = try StallingProxy(upstream: setup.daemonAddress, holding: "pull")
            defer { proxy.stop() }
            // Every sync of A goes through the relay: a cache is bound to the address it first synced with.
            let viaProxy = setup.environment(address: proxy.address)
            let (sync, out, err) = try Self.spawn(setup.ann, ["sync", "--json"], environment: viaProxy, name: "sync")
            try #require(proxy.waitUntilHeld(), "the sync never sent its pull: \(Self.text(err))")

            var seconds: [Double] = [] // not money: add latencies
            for index in 1...4 {
                let began = MonotonicClock.now()
                try setup.ann.succeed(["add", "3", "food", "--note", "during-sync-\(index)"], environment: setup.environment())
                seconds.append(MonotonicClock.now() - began)
            }
            // A second sync of the same cache is refused while the first runs (exit 75), and says why.
            let second = try setup.ann.run(["sync"], environment: viaProxy)
            #expect(second.status == 75 && second.stderr.contains("sync_running"), "\(second)")
            proxy.release()
            let exit = sync.wait(timeout: 120)
            #expect(exit.code == 0, "the sync ended with \(exit): \(Self.text(err))")
            print("add latency while a sync waits for the daemon (\(store)): "
                  + seconds.map { String(format: "%.3f s", $0) }.joined(separator: ", "))
            #expect(seconds.allSatisfy { $0 < 15 }, "an add waited for the sync: \(seconds)")

            let notes = try setup.notes(setup.ann)
            for note in ["before-sync", "from-bob"] + (1...4).map({ "during-sync-\($0)" }) {
                #expect(notes.contains(note), "\(note) missing from A's cache after the sync (\(store)): \(notes)")
            }
            let report = try JSONSerialization.jsonObject(with: Data(Self.text(out).utf8)) as? [String: Any]
            let pending = try setup.pending(setup.ann)
            #expect(report?["pending"] as? Int == pending, "the sync reported \(Self.text(out)) but status says \(pending) pending")
            try setup.ann.succeed(["sync"], environment: viaProxy)
            #expect(try setup.pending(setup.ann) == 0)
            try setup.bob.succeed(["sync"], environment: setup.environment())
            let bobNotes = try setup.notes(setup.bob)
            for note in ["before-sync"] + (1...4).map({ "during-sync-\($0)" }) {
                #expect(bobNotes.contains(note), "\(note) never reached the daemon (\(store)): \(bobNotes)")
            }
        }
    }

    /// Adds made (by other processes) while `sync --watch` runs survive the watcher pulling another client's
    /// change, and the watcher pushes them by itself.
    @Test(arguments: stores) func addsDuringAWatchSurviveItsPullsAndGoOut(store: String) async throws {
        try await onOwnThread {
            let setup = try Setup(store: store)
            defer { _ = setup.daemon.stop() }
            try setup.bob.succeed(["add", "1", "misc", "--note", "before-watch"], environment: setup.environment())
            try setup.bob.succeed(["sync"], environment: setup.environment())
            let watcher = try WatcherProcess(client: setup.ann, environment: setup.environment())
            defer { _ = watcher.stop(SIGKILL) }
            #expect(eventually(timeout: .seconds(60)) { watcher.stderr.contains("watching ") || !watcher.isRunning },
                    "the watcher never said it was watching; stderr: \(watcher.stderr)")
            try #require(watcher.isRunning, "the watcher ended; stderr: \(watcher.stderr)")

            // A sync beside the watcher is refused (exit 75): the watcher is the one syncing this cache.
            let beside = try setup.ann.run(["sync"], environment: setup.environment())
            #expect(beside.status == 75 && beside.stderr.contains("sync_running"), "\(beside)")

            try setup.ann.succeed(["add", "3", "food", "--note", "during-watch-1"], environment: setup.environment())
            try setup.ann.succeed(["add", "4", "food", "--note", "during-watch-2"], environment: setup.environment())
            try setup.bob.succeed(["add", "5", "travel", "--note", "from-bob"], environment: setup.environment())
            try setup.bob.succeed(["sync"], environment: setup.environment())
            #expect(try eventually(timeout: .seconds(60)) { try setup.notes(setup.ann).contains("from-bob") },
                    "B's change never reached the watcher; stderr: \(watcher.stderr)")
            let notes = try setup.notes(setup.ann)
            for note in ["during-watch-1", "during-watch-2"] {
                #expect(notes.contains(note), "\(note) vanished from A's cache when the watcher pulled (\(store)): \(notes)")
            }
            #expect(try eventually(timeout: .seconds(60), pause: .milliseconds(200)) {
                try setup.bob.succeed(["sync"], environment: setup.environment())
                let bobNotes = try setup.notes(setup.bob)
                return bobNotes.contains("during-watch-1") && bobNotes.contains("during-watch-2")
            }, "the watcher never pushed A's adds (\(store)); stderr: \(watcher.stderr)")
            let exit = watcher.stop(SIGTERM)
            #expect(exit.code == 0, "the watcher ended with \(exit); stderr: \(watcher.stderr)")
            #expect(try setup.pending(setup.ann) == 0)
        }
    }
}
