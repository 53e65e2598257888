import ExpenseTransport
import Foundation
import ProcessSpawn
import SystemKit

/// Redis's own ping over TLS, the figure reported beside ours: what TLS costs a server that, like expensed, leaves
/// the record layer to OpenSSL. A redis-server of its own (the kit's Debian package, built with TLS) on a free
/// loopback port, TLS only, no persistence, with a certificate made by `expensed tls init`; driven by the same
/// generator and the same plan as `redis_ping_rps` (50 connections, one `PING` in flight), so
/// `redis_tls_ping_ratio` is Redis's TLS/plaintext ratio of this run, as `tls_ping_rps` / `ping_rps` is ours.
struct RedisTLSPeer {
    let options: BenchOptions
    let workspace: Workspace

    static let keys = ["redis_tls_ping_rps", "redis_tls_ping_ratio"]

    func run(into report: inout BenchReport) {
        guard let server = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .first(where: FileManager.default.isExecutableFile(atPath:)) else {
            report.markMissing(Self.keys, "no redis-server (the peer kit installs it)")
            return
        }
        let directory = workspace.item("redis-tls", directory: true)
        let log = workspace.item("redis-tls.log")
        let context: TLSContext, port: UInt16
        do {
            (context, _) = try TLSScenario.certificate(options: options, tlsDirectory: directory, log: log)
            port = try BenchPostgresCluster.freePort()
        } catch {
            report.markMissing(Self.keys, "\(error)")
            return
        }
        let child: ChildProcess
        do {
            (child, _, _) = try ChildProcess.spawn(
                server, ["--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1", "--tls-cert-file",
                         directory + "/tls.crt", "--tls-key-file", directory + "/tls.key", "--tls-auth-clients", "no",
                         "--save", "", "--appendonly", "no", "--dir", directory, "--daemonize", "no"],
                environment: cleanEnvironment([:]), stdout: .file(log), stderr: .file(log))
        } catch {
            report.markMissing(Self.keys, error.description)
            return
        }
        let cleanup = BenchCleanup.add { child.send(SIGKILL) }
        defer {
            child.send(SIGTERM)
            _ = child.wait(timeout: 10)
            BenchCleanup.remove(cleanup)
        }
        do {
            try Self.waitUntilServing(port: port, context: context)
        } catch {
            report.markMissing(Self.keys, "\(error): \(DaemonProcess.tail(of: log, lines: 2))")
            return
        }
        let ping = Array("PING\r\n".utf8)
        let plan = LoadPlan(port: port, connections: 50, tls: context,
                            source: { _, _ in FixedRoundSource(request: ping, depth: 1) }, expect: Array("+PONG".utf8),
                            stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
        ThroughputScenario.measure(plan, key: "redis_tls_ping_rps", daemon: nil, options: options, into: &report)
        if let tls = report.value("redis_tls_ping_rps"), let plain = report.value("redis_ping_rps"), plain > 0 {
            report.record("redis_tls_ping_ratio", tls / plain)
        } else {
            report.markMissing(["redis_tls_ping_ratio"], "needs redis_ping_rps and redis_tls_ping_rps of this run")
        }
    }

    /// Waits (at most 10 s) until a TLS connection to `port` completes its handshake and answers a `PING`.
    private static func waitUntilServing(port: UInt16, context: TLSContext) throws(BenchError) {
        let deadline = MonotonicClock.now() + 10
        while true {
            do {
                let connection = try TCPConnection(host: "127.0.0.1", port: port, tls: context)
                try connection.send(Array("PING\r\n".utf8))
                var answer: [UInt8] = []
                try connection.receive(lines: 1, into: &answer)
                guard answer.starts(with: Array("+PONG".utf8)) else {
                    throw BenchError.unexpectedResponse("PING: \(BenchError.excerpt(answer))")
                }
                return
            } catch {
                if MonotonicClock.now() > deadline { throw BenchError.other("redis-server over TLS: \(error)") }
                sleepThread(for: .milliseconds(100))
            }
        }
    }
}
