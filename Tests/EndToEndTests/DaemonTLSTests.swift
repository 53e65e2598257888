import TestSupport
import ExpenseTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `expensed tls init` and `serve --tls-cert/--tls-key` with the real binary, checked by independent TLS stacks:
/// Python's `ssl` module and `openssl s_client` verify the daemon's certificate and exchange `hello`/`ping`.
@Suite(.serialized) struct DaemonTLSTests {
    private static func expensed(_ arguments: [String], scratch: String) throws -> ExpenseProcess.Result {
        try ExpenseProcess.run(ExpenseProcess.daemonExecutable, arguments, environment: ProcessInfo.processInfo.environment,
                               scratch: scratch)
    }

    /// `tls init` into `directory`: the fingerprint it printed.
    private static func initialise(_ directory: String, hosts: String? = nil) throws -> String {
        let result = try expensed(["tls", "init", "--data", directory] + (hosts.map { ["--host", $0] } ?? []), scratch: directory)
        #expect(result.status == 0, "\(result)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let python = #"""
    import json, socket, ssl, sys
    port, cafile, token = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    context = ssl.create_default_context(cafile=cafile)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=sys.argv[4]) as tls:
            reader = tls.makefile("rb")
            hello = {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"protocol": 1, "ledger": "default",
                     "token": token, "clientId": "3f2504e0-4f89-41d3-9a0c-0305e82c3301"}}
            tls.sendall((json.dumps(hello) + "\n").encode())
            answer = json.loads(reader.readline())
            tls.sendall(b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
            pong = json.loads(reader.readline())
            print(tls.version(), "result" in answer, pong.get("id"), "result" in pong)
    """#

    @Test func tlsInitMakesAPrivateKeyAndACertificateThatPythonAndOpenSSLVerify() async throws {
        let temporary = try TemporaryDirectory("expensed-tls"), directory = temporary.path
        defer { temporary.remove() }
        try await onOwnThread {
            let fingerprint = try Self.initialise(directory)
            #expect(fingerprint.hasPrefix("sha256:") && fingerprint.count == 71, "\(fingerprint)")
            for file in ["tls.crt", "tls.key"] {
                let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
            }
            #expect(try CertificateFingerprint(parsing: fingerprint) == CertificateFactory.fingerprint(ofPEMFile: directory + "/tls.crt"))
            #expect(try Self.expensed(["tls", "init", "--data", directory], scratch: directory).status == 1, "replaced without --force")

            let daemon = try ExpensedDaemon(data: directory + "/data", extra: ["--tls-cert", directory + "/tls.crt",
                                                                                "--tls-key", directory + "/tls.key"])
            defer { _ = daemon.stop() }
            let script = directory + "/client.py"
            try Self.python.write(toFile: script, atomically: true, encoding: .utf8)
            for name in ["localhost", "127.0.0.1"] {
                let python = try ExpenseProcess.run("/usr/bin/env", ["python3", script, "\(daemon.address.port)", directory + "/tls.crt",
                                                                     try daemon.token, name],
                                                    environment: ProcessInfo.processInfo.environment, scratch: directory)
                #expect(python.status == 0, "\(python)")
                #expect(python.stdout.hasPrefix("TLSv1.3 True 2 True"), "\(python)")
            }
            let openssl = try ExpenseProcess.run("/usr/bin/env", ["openssl", "s_client", "-connect", "127.0.0.1:\(daemon.address.port)",
                                                                  "-CAfile", directory + "/tls.crt", "-verify_return_error",
                                                                  "-verify_hostname", "localhost", "-quiet"],
                                                 environment: ProcessInfo.processInfo.environment,
                                                 stdin: #"{"jsonrpc":"2.0","id":7,"method":"ping"}"# + "\n", scratch: directory)
            // Before hello, ping is refused with a JSON-RPC error: what matters is that a verified TLS line came back.
            #expect(openssl.stdout.contains(#""id":7"#) || openssl.stdout.contains(#""jsonrpc":"2.0""#), "\(openssl)")
            // A plaintext client on the TLS port hears one plaintext line naming tls:// and is closed; the daemon says so.
            let plain = try LineConnection(connectingTo: daemon.address)
            try plain.writeLine(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            let told = (try? plain.readTextLine()) ?? nil
            #expect(told?.contains(#""reason":"tls_port""#) == true && told?.contains("tls://") == true, "\(told ?? "closed")")
            #expect((try? plain.readLine(timeout: .seconds(5))) ?? nil == nil)
            let deadline = ContinuousClock.now + .seconds(10)
            while !daemon.log.contains("plaintext_client"), ContinuousClock.now < deadline { usleep(10_000) }
            #expect(daemon.log.contains("plaintext_client"), "\(daemon.log)")
            #expect(!daemon.log.contains("ping"), "the peer's bytes were logged")
        }
    }

    @Test func aKeyReadableByOthersIsRefusedWithAClearError() async throws {
        let temporary = try TemporaryDirectory("expensed-tls"), directory = temporary.path
        defer { temporary.remove() }
        try await onOwnThread {
            _ = try Self.initialise(directory)
            chmod(directory + "/tls.key", 0o644)
            let result = try Self.expensed(["serve", "--data", directory + "/data", "--listen", "127.0.0.1:0",
                                            "--tls-cert", directory + "/tls.crt", "--tls-key", directory + "/tls.key"],
                                           scratch: directory)
            #expect(result.status == 77, "\(result)")
            #expect(result.stderr.contains("readable by its group or others") && result.stderr.contains("chmod 600"), "\(result)")
        }
    }

    @Test func sighupReloadsTheCertificateWithoutDroppingConnections() async throws {
        let temporary = try TemporaryDirectory("expensed-tls"), directory = temporary.path
        defer { temporary.remove() }
        try await onOwnThread {
            let first = try Self.initialise(directory)
            let daemon = try ExpensedDaemon(data: directory + "/data", extra: ["--tls-cert", directory + "/tls.crt",
                                                                                "--tls-key", directory + "/tls.key"])
            defer { _ = daemon.stop() }
            let record = TLSClientConfiguration(verification: .recordFingerprint)
            let open = try LineConnection(connectingTo: daemon.address, tls: record)
            #expect(open.peerCertificateFingerprint?.description == first)
            let second = try Self.expensed(["tls", "init", "--data", directory, "--force"], scratch: directory)
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(second != first)
            kill(daemon.pid, SIGHUP)
            let deadline = ContinuousClock.now + .seconds(10)
            while !daemon.log.contains("reloaded"), ContinuousClock.now < deadline { usleep(10_000) }
            #expect(daemon.log.contains("reloaded"), "\(daemon.log)")
            let renewed = try LineConnection(connectingTo: daemon.address, tls: record)
            #expect(renewed.peerCertificateFingerprint?.description == second)
            try open.writeLine(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            #expect(try open.readTextLine() != nil, "the connection opened before the reload was dropped")
        }
    }
}
