import Foundation
import Glibc
import ProcessSpawn
import TestSupport
import Testing

/// `expense-bench --peers`: it stops the peer servers it started, on every exit path, and never touches one it did not
/// start (another PostgreSQL on the box may be a test cluster). The peer kit is replaced by a fake one (same file
/// names, same pidfiles under `PEERS_STATE`) whose "servers" are sleeping Python processes, so no Redis or PostgreSQL
/// is needed.
@Suite("bench peers lifecycle", .enabled(if: BenchExecutable.enabled, BenchExecutable.skipReason))
struct BenchPeersTests {
    /// A fake `setup-peers.sh`: starts what is not running (like the real one) and writes the real kit's pidfiles.
    static let setupScript = #"""
        #!/usr/bin/env bash
        set -euo pipefail
        STATE=${PEERS_STATE:?}
        mkdir -p "$STATE/pg/data"
        start() { # pidfile
          if [[ -f "$1" ]] && kill -0 "$(head -1 "$1")" 2>/dev/null; then echo "already running: $1"; return; fi
          # A background job of a script starts with SIGINT ignored: the server restores it, then says it is ready
          # (the real script likewise waits for PONG and for pg_ctl -w before it returns).
          rm -f "$1.ready"
          python3 -c 'import signal, sys, time
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        open(sys.argv[1], "w").close()
        time.sleep(600)' "$1.ready" </dev/null >/dev/null 2>&1 &
          echo $! > "$1"
          for _ in $(seq 1200); do [[ -e "$1.ready" ]] && return; sleep 0.05; done
          echo "fake server for $1 never became ready" >&2; exit 1
        }
        start "$STATE/redis-mem.pid"
        start "$STATE/redis-aof.pid"
        start "$STATE/pg/data/postmaster.pid"
        # FAKE_SETUP_FIFO: say "servers started" through it, then hang (like a slow install) until the bench is gone.
        if [[ -n "${FAKE_SETUP_FIFO:-}" ]]; then
          parent=$PPID
          echo started > "$FAKE_SETUP_FIFO"
          while read -r _ _ _ ppid _ < /proc/$$/stat && [[ "$ppid" == "$parent" ]]; do sleep 0.2; done
          exit 1
        fi
        """#

    /// A temporary fake kit and state directory.
    final class Kit: Sendable {
        let root: String
        var kit: String { root + "/kit" }
        var state: String { root + "/state" }

        init() throws {
            root = NSTemporaryDirectory() + "bench-peers-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: root + "/kit", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/state/pg/data", withIntermediateDirectories: true)
            try BenchPeersTests.setupScript.write(toFile: kit + "/setup-peers.sh", atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// The pid in a pidfile under the state directory (first line), if any.
        func pid(_ relative: String) -> pid_t? {
            guard let text = try? String(contentsOfFile: state + "/" + relative, encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first.flatMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        }

        static let pidFiles = ["redis-mem.pid", "redis-aof.pid", "pg/data/postmaster.pid"]
    }

    /// Alive and not a zombie (a reparented child may stay a zombie when nothing reaps it).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = ChildProcess.procFile(pid, "stat"), let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
        return state != "Z" && state != "X"
    }

    /// Kills what the test itself left (a failing run may leave the fake servers behind): only a process whose
    /// command line names this kit's directory. A pidfile outlives its process (the fake servers never remove
    /// theirs), and by the time the test ends its number may be another process's, a PostgreSQL backend of
    /// another test, say.
    static func killLeftovers(_ kit: Kit) {
        for file in Kit.pidFiles {
            guard let pid = kit.pid(file), pid > 1, isRunning(pid),
                  ChildProcess.procFile(pid, "cmdline")?.contains(kit.root) == true else { continue }
            kill(pid, SIGKILL)
        }
    }

    static func benchArguments(_ kit: Kit) -> [String] {
        // The kit's peers are measured by the `redis` section (the `pg` section runs a cluster of its own).
        ["--only", "redis", "--quick", "--peers-dir", kit.kit]
    }

    static func environment(_ kit: Kit, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PEERS_STATE"] = kit.state
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    @Test("a normal run stops every peer server it started")
    func stopsWhatItStarted() async throws {
        let kit = try Kit()
        defer { Self.killLeftovers(kit) }
        let result = try await onOwnThread {
            try ExpenseProcess.run(try BenchExecutable.required(), Self.benchArguments(kit),
                                   environment: Self.environment(kit), scratch: kit.root)
        }
        #expect(result.status == 0, "\(result)")
        for file in Kit.pidFiles {
            let pid = try #require(kit.pid(file), "the fake setup wrote \(file)")
            #expect(!Self.isRunning(pid), "\(file) (pid \(pid)) still running after the bench: \(result)")
        }
    }

    @Test("a PostgreSQL the bench did not start keeps running; the servers it started are stopped")
    func leavesForeignServersAlone() async throws {
        let kit = try Kit()
        defer { Self.killLeftovers(kit) }
        // Another process's PostgreSQL, already running in the kit's data directory.
        let (foreign, _, _) = try ChildProcess.spawn("/usr/bin/env", ["python3", "-c", "import time; time.sleep(600)"],
                                                     environment: ProcessInfo.processInfo.environment,
                                                     stdout: .discard, stderr: .discard)
        defer {
            foreign.send(SIGKILL)
            _ = foreign.wait(timeout: 10)
        }
        try "\(foreign.pid)\n\(kit.state)/pg/data\n".write(toFile: kit.state + "/pg/data/postmaster.pid",
                                                          atomically: true, encoding: .utf8)
        let result = try await onOwnThread {
            try ExpenseProcess.run(try BenchExecutable.required(), Self.benchArguments(kit),
                                   environment: Self.environment(kit), scratch: kit.root)
        }
        #expect(result.status == 0, "\(result)")
        #expect(Self.isRunning(foreign.pid), "the foreign PostgreSQL was stopped: \(result)")
        #expect(kit.pid("pg/data/postmaster.pid") == foreign.pid)
        for file in ["redis-mem.pid", "redis-aof.pid"] {
            let pid = try #require(kit.pid(file))
            #expect(!Self.isRunning(pid), "\(file) (pid \(pid)) still running after the bench: \(result)")
        }
    }

    @Test("the test's own clean-up kills nothing but the kit's servers, whatever number a pidfile holds")
    func aPidfileNamingAnotherProcessKillsNothing() throws {
        let kit = try Kit()
        let (other, _, _) = try ChildProcess.spawn("/bin/sleep", ["600"], environment: [:], stdout: .discard, stderr: .discard)
        defer {
            other.send(SIGKILL)
            _ = other.wait(timeout: 10)
        }
        // A stopped fake server's pidfile, its number since given to another process.
        try "\(other.pid)\n".write(toFile: kit.state + "/redis-mem.pid", atomically: true, encoding: .utf8)
        Self.killLeftovers(kit)
        #expect(Self.isRunning(other.pid), "the clean-up killed a process that was not the kit's")
    }

    /// `FAKE_SETUP_FIFO`: the signal comes while `setup-peers.sh` still runs (its servers already started).
    @Test("SIGTERM in the middle of the peer section stops the servers the bench started",
          arguments: ["FAKE_SETUP_FIFO"])
    func stopsOnSignal(during stage: String) async throws {
        let kit = try Kit()
        defer { Self.killLeftovers(kit) }
        let fifo = kit.root + "/stage-reached"
        #expect(mkfifo(fifo, 0o600) == 0)
        let exit = try await onOwnThread { () throws -> ChildProcess.Exit in
            let log = kit.root + "/bench.log"
            let (bench, _, _) = try ChildProcess.spawn(try BenchExecutable.required(), Self.benchArguments(kit),
                                                       environment: Self.environment(kit, extra: [stage: fifo]),
                                                       stdout: .file(log), stderr: .file(log))
            // The FIFO becomes readable once the fake script wrote to it: the bench is at that stage.
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, 120_000)
            if reader >= 0 { close(reader) }
            bench.send(SIGTERM)
            return bench.wait(timeout: 60)
        }
        #expect(!exit.timedOut)
        #expect(exit.code != 0, "a stopped bench does not report success")
        for file in Kit.pidFiles {
            let pid = try #require(kit.pid(file))
            #expect(!Self.isRunning(pid), "\(file) (pid \(pid)) still running after SIGTERM to the bench")
        }
    }
}
