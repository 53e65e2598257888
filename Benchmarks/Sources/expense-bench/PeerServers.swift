import Foundation
import Glibc
import ProcessSpawn
import Synchronization

/// The peer servers of `../shared/peers/setup-peers.sh` that this run started, found through the kit's pidfiles under
/// `PEERS_STATE` (default `/tmp/peers`), and stopped by pid at the end, so a run leaves the box's servers as it found
/// them.
///
/// A server counts as started by this run only if its pidfile names a process after the setup script ran that was not
/// running before it (same pid and same start time in `/proc/PID/stat`). Servers that were already running, and
/// anything outside the kit's pidfiles (another PostgreSQL on the box, a test cluster), are never signalled.
final class PeerServers: Sendable {
    /// One server of the kit: its pidfile (pid on the first line) and the signal that stops it cleanly.
    struct Server: Sendable, Hashable {
        var name: String
        var pidFile: String
        var stopSignal: Int32
    }

    /// A process, identified so that a reused pid is not mistaken for it.
    struct Identity: Sendable, Hashable {
        var pid: pid_t
        /// Clock ticks after boot at which the process started (`/proc/PID/stat`, field 22).
        var startTicks: UInt64
    }

    let servers: [Server]
    private let started = Mutex<[(Server, Identity)]>([])
    /// What ran before the setup script that is running now (`nil` when none runs): a stop in the middle of the
    /// script (a signal during a slow install) still knows what the script started.
    private let beforeSetUp = Mutex<[Server: Identity]?>(nil)

    /// The kit's servers under `stateDirectory`: Redis gets SIGTERM, PostgreSQL SIGINT (fast shutdown), as in
    /// `stop-peers.sh`.
    init(stateDirectory: String) {
        servers = [
            Server(name: "redis-mem", pidFile: stateDirectory + "/redis-mem.pid", stopSignal: SIGTERM),
            Server(name: "redis-aof", pidFile: stateDirectory + "/redis-aof.pid", stopSignal: SIGTERM),
            Server(name: "postgres", pidFile: stateDirectory + "/pg/data/postmaster.pid", stopSignal: SIGINT),
        ]
    }

    /// `PEERS_STATE`, else `/tmp/peers` (what the kit's scripts use).
    static var defaultStateDirectory: String {
        ProcessInfo.processInfo.environment["PEERS_STATE"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/peers"
    }

    /// Which of the servers run now.
    func running() -> [Server: Identity] {
        var result: [Server: Identity] = [:]
        for server in servers {
            if let identity = Self.identity(pidFile: server.pidFile) { result[server] = identity }
        }
        return result
    }

    /// Call before the setup script runs: notes what runs already.
    /// - Returns: the servers already running (they are never stopped).
    @discardableResult
    func setUpBegins() -> [Server: Identity] {
        let before = running()
        beforeSetUp.withLock { $0 = before }
        return before
    }

    /// Call once the setup script ended (or when the run is stopped while it runs): records as started by this run
    /// every server running now that was not running when it began.
    /// - Returns: the names of those servers.
    @discardableResult
    func setUpEnded() -> [String] {
        guard let before = beforeSetUp.withLock({ value in
            defer { value = nil }
            return value
        }) else { return [] }
        let now = running()
        let new = servers.compactMap { server -> (Server, Identity)? in
            guard let identity = now[server], before[server] != identity else { return nil }
            return (server, identity)
        }
        started.withLock { $0 += new }
        return new.map(\.0.name)
    }

    /// Stops, by pid, each server this run started that still is the same process; waits up to `timeout` seconds
    /// for each to exit. Safe to call more than once.
    func stopStarted(timeout: Double = 30) {
        setUpEnded()
        let servers = started.withLock { all in
            defer { all.removeAll() }
            return all
        }
        for (server, identity) in servers {
            guard Self.identity(of: identity.pid) == identity else {
                progress("peers: \(server.name) (pid \(identity.pid)) already gone")
                continue
            }
            kill(identity.pid, server.stopSignal)
            let deadline = MonotonicClock.now() + timeout
            while Self.identity(of: identity.pid) == identity && MonotonicClock.now() < deadline {
                MonotonicClock.sleep(0.05)
            }
            let stopped = Self.identity(of: identity.pid) != identity
            progress("peers: \(server.name) (pid \(identity.pid), started by this run) "
                     + (stopped ? "stopped" : "still running after \(Int(timeout)) s (not escalating)"))
        }
    }

    /// The running process a pidfile names, if any.
    static func identity(pidFile: String) -> Identity? {
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let first = text.split(separator: "\n").first,
              let pid = pid_t(first.trimmingCharacters(in: .whitespaces)), pid > 1 else { return nil }
        return identity(of: pid)
    }

    /// `pid` and its start time while it runs (a zombie no longer counts), else `nil`.
    static func identity(of pid: pid_t) -> Identity? {
        guard let stat = ChildProcess.procFile(pid, "stat"), let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": field 3 (state) is the first, field 22 (starttime) the twentieth.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, fields[0] != "Z", fields[0] != "X", let ticks = UInt64(fields[19]) else { return nil }
        return Identity(pid: pid, startTicks: ticks)
    }
}
