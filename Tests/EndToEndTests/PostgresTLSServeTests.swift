import ExpenseTransport
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `expensed serve --postgres … --tls-cert/--tls-key` with the real binary: the PostgreSQL daemon arms TLS as the
/// data-directory daemon does (`ServeCommand.announceTransport`), so a SIGHUP reloads the certificate instead of
/// ending the daemon (SIGHUP's default action), and no plaintext warning is logged for a TLS port.
@Suite struct PostgresTLSServeTests {
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func aPostgresDaemonServesTLSAndReloadsItsCertificateOnSighup() async throws {
        try await onOwnThread {
            let database = try PostgresScratchSchema()
            defer { database.drop() }
            let temporary = try TemporaryDirectory("expensed-pg-tls"), directory = temporary.path
            defer { temporary.remove() }
            let initialised = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, ["tls", "init", "--data", directory],
                                                     environment: ProcessInfo.processInfo.environment, scratch: directory)
            #expect(initialised.status == 0, "\(initialised)")

            let daemon = try ExpensedDaemon(data: directory + "/data", extra: [
                "--postgres", database.target,
                "--tls-cert", directory + "/tls.crt", "--tls-key", directory + "/tls.key",
            ])
            defer { _ = daemon.stop() }
            let open = try LineConnection(connectingTo: daemon.address, tls: TLSClientConfiguration(verification: .recordFingerprint))
            #expect(open.peerCertificateFingerprint != nil)
            kill(daemon.pid, SIGHUP)
            let deadline = ContinuousClock.now + .seconds(10)
            while !daemon.log.contains("reloaded"), ContinuousClock.now < deadline { usleep(10_000) }
            #expect(daemon.log.contains("serving TLS with"), "\(daemon.log)")
            #expect(daemon.log.contains("reloaded"), "\(daemon.log)")
            #expect(!daemon.log.contains("WARNING"), "\(daemon.log)")
            try open.writeLine(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            #expect(try open.readTextLine() != nil, "the daemon went away on SIGHUP")
        }
    }

    /// SIGTERM stops a PostgreSQL daemon the way it stops a data-directory one (`ServeCommand.stopOnSignal`,
    /// through SystemKit's `StopSignal`): logged, in-flight requests finished, exit 0.
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func aPostgresDaemonStopsGracefullyOnSigterm() async throws {
        try await onOwnThread {
            let database = try PostgresScratchSchema()
            defer { database.drop() }
            let temporary = try TemporaryDirectory("expensed-pg-stop"), directory = temporary.path
            defer { temporary.remove() }
            let daemon = try ExpensedDaemon(data: directory + "/data", extra: [
                "--postgres", database.target,
            ])
            #expect(daemon.stop() == 0, "\(daemon.log)")
            #expect(daemon.log.contains("received SIGTERM; finishing in-flight requests and stopping"), "\(daemon.log)")
            #expect(daemon.log.contains("stopped"), "\(daemon.log)")
        }
    }
}
