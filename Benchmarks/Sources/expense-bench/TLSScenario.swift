import ExpenseTransport
import Foundation
import ProcessSpawn

/// The TLS figures, each compared with its plaintext figure of the same run: a fresh daemon serving TLS
/// (`expensed tls init`, then `serve --tls-cert/--tls-key`), measured with the same generator as plaintext: `ping`
/// with 50 connections one in flight, full handshakes per second, and 5,000 idle TLS connections' daemon RSS. The
/// generator's client is ExpenseTransport's ``TLSSession``, pinned to the certificate's fingerprint.
struct TLSScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let keys = ["tls_ping_rps", "tls_ping_daemon_us_per_ping", "tls_added_us_per_ping", "tls_handshakes_per_s",
                       "tls_handshake_p50_ms", "tls_idle_5000_rss_mib", "tls_idle_kib_per_connection"]
    /// Connections opening and closing at once for the handshake figure.
    static let handshakeConnections = 16

    /// A daemon on `dataDirectory` serving TLS with a certificate made by `expensed tls init` in `tlsDirectory`.
    /// - Returns: the daemon and a client context pinned to its certificate.
    static func startDaemon(options: BenchOptions, dataDirectory: String, tlsDirectory: String, log: String,
                            extraArguments: [String] = []) throws(BenchError) -> (DaemonProcess, TLSContext, String) {
        let (context, fingerprint) = try certificate(options: options, tlsDirectory: tlsDirectory, log: log)
        let daemon = try DaemonProcess(executable: options.expensed, dataDirectory: dataDirectory, log: log,
                                       extraArguments: ["--tls-cert", tlsDirectory + "/tls.crt",
                                                        "--tls-key", tlsDirectory + "/tls.key"] + extraArguments)
        return (daemon, context, fingerprint.description)
    }

    /// A certificate and key for 127.0.0.1 made by `expensed tls init` in `tlsDirectory` (`tls.crt`, `tls.key`),
    /// and a client context pinned to it.
    static func certificate(options: BenchOptions, tlsDirectory: String,
                            log: String) throws(BenchError) -> (TLSContext, CertificateFingerprint) {
        let output = tlsDirectory + ".out"
        let (exit, _) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
            try ChildProcess.run(options.expensed, ["tls", "init", "--data", tlsDirectory, "--host", "127.0.0.1"],
                                 environment: cleanEnvironment([:]), stdout: .file(output), stderr: .file(log), timeout: 60)
        }
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard exit.succeeded, let fingerprint = CertificateFingerprint(parsing: printed.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .child("expensed tls init: \(exit.description): \(printed.prefix(200)) \(DaemonProcess.tail(of: log, lines: 2))")
        }
        let context: TLSContext
        do {
            context = try TLSContext.client(.pin(fingerprint))
        } catch {
            throw .other("TLS client context: \(error)")
        }
        return (context, fingerprint)
    }

    func run(into report: inout BenchReport) {
        let daemon: DaemonProcess, context: TLSContext
        do {
            (daemon, context, _) = try Self.startDaemon(options: options, dataDirectory: workspace.item("data-tls", directory: true),
                                                        tlsDirectory: workspace.item("tls-throughput", directory: true),
                                                        log: workspace.item("expensed-tls.log"),
                                                        extraArguments: ["--max-connections", "10000"])
        } catch {
            progress("tls: \(error)")
            report.markMissing(Self.keys, "\(error)")
            return
        }
        progress("tls: expensed serving TLS on port \(daemon.port)")
        let token = daemon.token
        let ping = LoadPlan(port: daemon.port, connections: 50, tls: context,
                            handshake: { connection, _ throws(BenchError) in try RPCSession.hello(connection, token: token) },
                            source: { _, _ in FixedRoundSource(request: ThroughputScenario.pingLine, depth: 1) },
                            expect: ThroughputScenario.resultToken,
                            stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
        ThroughputScenario.measure(ping, key: "tls_ping_rps", daemon: daemon, options: options, into: &report,
                                   perOperationKey: "tls_ping_daemon_us_per_ping")
        // What TLS adds to the daemon's CPU per ping: the plaintext ping of this run (the throughput section) beside.
        if let tls = report.value("tls_ping_daemon_us_per_ping"), let plain = report.value("ping_daemon_us_per_ping") {
            report.record("tls_added_us_per_ping", tls - plain)
        } else {
            report.markMissing(["tls_added_us_per_ping"], "needs ping_daemon_us_per_ping of this run (the throughput section)")
        }

        let churn = LoadPlan(port: daemon.port, connections: Self.handshakeConnections, tls: context, work: .handshakes,
                             stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
        ThroughputScenario.measureRate(churn, rateKey: "tls_handshakes_per_s", percentiles: [("tls_handshake_p50_ms", 50)],
                                       options: options, into: &report)

        if options.includes("idle") {
            switch ThroughputScenario.idleResident(daemon, connections: options.idleConnections, tls: context,
                                                   runs: options.runs, what: "tls_idle_5000") {
            case .success(let idle):
                report.record("tls_idle_5000_rss_mib", idle.mib, missing: "no /proc/PID/status")
                report.record("tls_idle_kib_per_connection", idle.kibPerConnection, missing: "no /proc/PID/status")
            case .failure(let error): report.markMissing(["tls_idle_5000_rss_mib", "tls_idle_kib_per_connection"], "\(error)")
            }
        }
        let exit = daemon.stop()
        if !exit.succeeded { progress("tls: expensed stopped with \(exit.description) (expected exit 0)") }
        workspace.remove("data-tls")
    }
}
