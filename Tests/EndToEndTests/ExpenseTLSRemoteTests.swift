import TestSupport
import Foundation
import Testing

/// `expense remote set tls://…` against the real daemon over TLS: a verified sync, and each certificate problem
/// refused with its own code (exit 77), never a fallback to plaintext.
@Suite(.serialized) struct ExpenseTLSRemoteTests {
    private static func certificate(_ directory: String, hosts: String? = nil) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try ExpenseProcess.run(ExpenseProcess.daemonExecutable,
                                            ["tls", "init", "--data", directory] + (hosts.map { ["--host", $0] } ?? []),
                                            environment: ProcessInfo.processInfo.environment, scratch: directory)
        #expect(result.status == 0, "\(result)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aTLSRemoteSyncsVerifiedAndEachCertificateProblemHasItsOwnCode() async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            let tlsDirectory = client.directory + "/tls"
            let fingerprint = try Self.certificate(tlsDirectory)
            let otherDirectory = client.directory + "/other"
            let otherFingerprint = try Self.certificate(otherDirectory, hosts: "other.example")
            let daemon = try ExpensedDaemon(data: client.directory + "/data",
                                            extra: ["--tls-cert", tlsDirectory + "/tls.crt", "--tls-key", tlsDirectory + "/tls.key"])
            defer { _ = daemon.stop() }
            let tokenFile = daemon.data + "/default.token"
            let port = daemon.address.port
            let remote = "tls://127.0.0.1:\(port)"

            try client.succeed(["remote", "set", remote, "--ledger", "default", "--token-file", tokenFile, "--ca", tlsDirectory + "/tls.crt"])
            try client.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            #expect(try client.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")

            func refused(_ arguments: [String], code: String, environment: [String: String] = [:]) throws {
                let result = try client.run(arguments, environment: environment)
                #expect(result.status == 77, "\(arguments): \(result)")
                #expect(result.stderr.contains(code), "\(arguments): \(result)")
            }
            // Verification is full by default: the system store does not know a self-signed daemon.
            try refused(["sync"], code: "unknown_ca", environment: ["EXPENSE_TLS_CA": otherDirectory + "/tls.crt"])
            // A certificate for another name (the other CA file trusts it, but it names other.example).
            let wrongName = try ExpensedDaemon(data: client.directory + "/data2",
                                               extra: ["--tls-cert", otherDirectory + "/tls.crt", "--tls-key", otherDirectory + "/tls.key"])
            defer { _ = wrongName.stop() }
            try refused(["sync"], code: "host_mismatch", environment: ["EXPENSE_SERVER": "tls://127.0.0.1:\(wrongName.address.port)",
                                                                        "EXPENSE_TLS_CA": otherDirectory + "/tls.crt"])
            // A pin names one certificate.
            try refused(["sync"], code: "pin_mismatch", environment: ["EXPENSE_TLS_PIN": otherFingerprint])
            #expect(try client.run(["sync"], environment: ["EXPENSE_TLS_PIN": fingerprint]).status == 0)
            // tls:// to a plaintext daemon is refused, never downgraded.
            let plaintext = try ExpensedDaemon(data: client.directory + "/data3")
            defer { _ = plaintext.stop() }
            try refused(["sync"], code: "plaintext_server", environment: ["EXPENSE_SERVER": "tls://127.0.0.1:\(plaintext.address.port)"])
        }
    }

    @Test func trustFirstPinsTheFirstCertificateAndRefusesAnotherWithBothFingerprints() async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            let tlsDirectory = client.directory + "/tls"
            let first = try Self.certificate(tlsDirectory)
            let daemon = try ExpensedDaemon(data: client.directory + "/data",
                                            extra: ["--tls-cert", tlsDirectory + "/tls.crt", "--tls-key", tlsDirectory + "/tls.key"])
            defer { _ = daemon.stop() }
            try client.succeed(["remote", "set", "tls://localhost:\(daemon.address.port)", "--ledger", "default",
                                "--token-file", daemon.data + "/default.token", "--trust-first"])
            try client.succeed(["sync"])
            let stored = try String(contentsOfFile: client.home + "/remote-tls", encoding: .utf8)
            #expect(stored.contains("pin \(first)"), "\(stored)")
            let second = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, ["tls", "init", "--data", tlsDirectory, "--force"],
                                                environment: ProcessInfo.processInfo.environment, scratch: client.directory)
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            kill(daemon.pid, SIGHUP)
            let deadline = ContinuousClock.now + .seconds(10)
            while !daemon.log.contains("reloaded"), ContinuousClock.now < deadline { usleep(10_000) }
            let result = try client.run(["sync"])
            #expect(result.status == 77, "\(result)")
            #expect(result.stderr.contains("pin_mismatch") && result.stderr.contains(first) && result.stderr.contains(second)
                    && result.stderr.contains("--pin \(second)"), "\(result)")
        }
    }

    @Test func plaintextToAnAddressThatIsNotLoopbackIsRefusedUnlessSaid() async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            let result = try client.run(["sync"], environment: ["EXPENSE_SERVER": "192.0.2.1:7468", "EXPENSE_LEDGER": "default",
                                                                "EXPENSE_TOKEN": "x"])
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.contains("refusing plaintext") && result.stderr.contains("tls://"), "\(result)")
        }
    }
    @Test func aPlaintextRemoteOnTheTLSPortIsToldToUseTLS() async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            let tlsDirectory = client.directory + "/tls"
            _ = try Self.certificate(tlsDirectory)
            let daemon = try ExpensedDaemon(data: client.directory + "/data",
                                            extra: ["--tls-cert", tlsDirectory + "/tls.crt", "--tls-key", tlsDirectory + "/tls.key"])
            defer { _ = daemon.stop() }
            try client.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            let result = try client.run(["sync"], environment: ["EXPENSE_SERVER": "127.0.0.1:\(daemon.address.port)",
                                                                "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": try daemon.token])
            // One attempt is enough: the answer is an error of its own, never retried as an outage.
            #expect(result.status == 77, "\(result)")
            #expect(result.stderr.contains("tls_server") && result.stderr.contains("tls://127.0.0.1:\(daemon.address.port)"), "\(result)")
            #expect(try client.succeed(["status"]).contains("pending:    1"), "the queue is intact")
        }
    }
}
