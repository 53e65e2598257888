import Foundation
import Glibc
import ProcessSpawn

/// A throwaway, durable PostgreSQL cluster that the bench starts for its `pg` section and stops (and removes)
/// on every exit path: `fsync`, `synchronous_commit` and `full_page_writes` stay on, unlike the test cluster
/// of `.ci/postgres`. It never touches a cluster it did not start.
final class BenchPostgresCluster {
    /// The libpq keyword/value string of the `postgres` database as user `expense` (trust on loopback).
    let conninfo: String
    private let directory: String
    private let bindir: String
    private var cleanup: Int?

    /// initdb in a new `/tmp/expense-bench-pg.XXXXXX` and start on a free loopback port with `max_connections`;
    /// as root, both as the `postgres` user (initdb refuses root).
    init(maxConnections: Int = 300) throws(BenchError) {
        guard let bindir = Self.binaryDirectory() else {
            throw .other("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)")
        }
        self.bindir = bindir
        var template = Array("/tmp/expense-bench-pg.XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw .lastSystemError("mkdtemp")
        }
        directory = String(cString: created)
        if getuid() == 0 {
            guard let owner = getpwnam("postgres") else {
                try? FileManager.default.removeItem(atPath: directory)
                throw .other("running as root and there is no postgres user to run the cluster as")
            }
            chown(directory, owner.pointee.pw_uid, owner.pointee.pw_gid)
        }
        let log = directory + "/server.log"
        let directory = self.directory
        let cleanup = BenchCleanup.add { Self.stop(directory: directory, bindir: bindir) }
        do {
            try Self.run(bindir, "initdb", ["-D", directory + "/data", "-U", "expense", "--auth=trust", "-E", "UTF8",
                                            "--locale=C.UTF-8"], log: directory + "/initdb.log")
            let port = try Self.freePort()
            try Self.run(bindir, "pg_ctl", ["-D", directory + "/data", "-l", log, "-w", "-t", "60", "start", "-o",
                                            "-c listen_addresses=127.0.0.1 -p \(port) -k \(directory) -c max_connections=\(maxConnections)"],
                         log: directory + "/pg_ctl.log")
            conninfo = "host=127.0.0.1 port=\(port) user=expense dbname=postgres"
        } catch {
            BenchCleanup.remove(cleanup)
            Self.stop(directory: directory, bindir: bindir)
            throw error
        }
        self.cleanup = cleanup
    }

    deinit { stop() }

    /// Stops the cluster (fast shutdown) and removes its directory; safe to call twice.
    func stop() {
        guard let cleanup else { return }
        BenchCleanup.remove(cleanup)
        self.cleanup = nil
        Self.stop(directory: directory, bindir: bindir)
    }

    private static func stop(directory: String, bindir: String) {
        if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
            _ = try? ChildProcess.run(launcher, asOwner(bindir + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"]),
                                      environment: ProcessInfo.processInfo.environment, timeout: 60)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func run(_ bindir: String, _ tool: String, _ arguments: [String], log: String) throws(BenchError) {
        let (exit, _) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
            try ChildProcess.run(Self.launcher, Self.asOwner(bindir + "/" + tool, arguments),
                                 environment: ProcessInfo.processInfo.environment, stdout: .file(log), stderr: .file(log),
                                 timeout: 120)
        }
        guard exit.succeeded else { throw .child("\(tool): \(exit.description): \(DaemonProcess.tail(of: log))") }
    }

    /// As root, through `runuser -u postgres --`; otherwise directly.
    private static var launcher: String { getuid() == 0 ? "/usr/sbin/runuser" : "/usr/bin/env" }

    private static func asOwner(_ tool: String, _ arguments: [String]) -> [String] {
        (getuid() == 0 ? ["-u", "postgres", "--", tool] : [tool]) + arguments
    }

    /// The newest `/usr/lib/postgresql/N/bin` holding initdb.
    private static func binaryDirectory() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// A loopback port the kernel says is free now (bound to port 0, then released).
    static func freePort() throws(BenchError) -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw .lastSystemError("socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw .lastSystemError("bind") }
        return UInt16(bigEndian: address.sin_port)
    }
}
