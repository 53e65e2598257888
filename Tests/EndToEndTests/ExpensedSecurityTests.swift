import TestSupport
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing

/// Security properties that need the real binaries: the bind warning, logs, client file modes.
@Suite(.serialized) struct ExpensedSecurityTests {
    @Test func aNonLoopbackPlaintextBindIsRefusedUnlessInsecurePlaintextIsSaid() async throws {
        let temporary = try TemporaryDirectory("expensed-sec"), directory = temporary.path
        defer { temporary.remove() }
        try await onOwnThread {
            let refused = try ExpenseProcess.run(ExpenseProcess.daemonExecutable,
                                                 ["serve", "--data", directory + "/r", "--listen", "0.0.0.0:0"],
                                                 environment: ProcessInfo.processInfo.environment, scratch: directory)
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.stderr.contains("--insecure-plaintext") && refused.stderr.contains("--tls-cert"), "\(refused)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/r"), "a refused start created the data directory")

            let exposed = try ExpensedDaemon(data: directory + "/a", listen: "0.0.0.0:0", extra: ["--insecure-plaintext"])
            #expect(exposed.address.port != 0)
            let token = try exposed.token
            // Reachable (through loopback), so the warning is not about a failed bind.
            let client = try WireClient(SocketAddress(host: "127.0.0.1", port: exposed.address.port))
            _ = try client.hello(token: token, clientId: UUID())
            let log = exposed.log
            #expect(log.contains("WARNING"), "no warning in: \(log)")
            #expect(log.contains("not a loopback address"))
            #expect(!log.contains(token), "the token was logged")
            #expect(exposed.stop() == 0)

            let alias = try ExpensedDaemon(data: directory + "/b", listen: "0.0.0.0:0", extra: ["--trust-network"])
            #expect(alias.log.contains("not a loopback address"), "--trust-network is --insecure-plaintext")
            #expect(alias.stop() == 0)

            let local = try ExpensedDaemon(data: directory + "/c")
            #expect(local.address.host == "127.0.0.1")
            #expect(!local.log.contains("WARNING"))
            #expect(local.log.contains("default.token"), "the log says where the token is")
            #expect(local.stop() == 0)
        }
    }

    @Test func tokensNeverReachTheDaemonsLogEvenOnFailedHellos() async throws {
        let temporary = try TemporaryDirectory("expensed-sec"), directory = temporary.path
        defer { temporary.remove() }
        try await onOwnThread {
            let daemon = try ExpensedDaemon(data: directory + "/d")
            let token = try daemon.token
            let guess = String(token.reversed())
            for attempt in [guess, token] {
                let client = try WireClient(daemon.address)
                _ = try? client.hello(token: attempt, clientId: UUID())
            }
            let wrongLedger = try WireClient(daemon.address)
            _ = try? wrongLedger.hello(token: token, clientId: UUID(), ledger: "nope")
            let log = daemon.log  // every hello was answered, so its log line is written
            #expect(daemon.stop() == 0)
            #expect(log.contains("hello failed"))
            #expect(!log.contains(token))
            #expect(!log.contains(guess))
        }
    }

    @Test(arguments: ["sqlite", "json"])
    func clientCacheFilesAreOwnerOnly(store: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "12.50", "food", "--date", "2026-11-30"], environment: ["EXPENSE_STORE": store])
            let home = expense.home
            let attributes = try FileManager.default.attributesOfItem(atPath: home)
            #expect(attributes[.posixPermissions] as? Int == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: home)
            #expect(!files.isEmpty)
            for file in files {
                let mode = try FileManager.default.attributesOfItem(atPath: home + "/" + file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(file) has mode \(String(mode ?? 0, radix: 8))")
            }
        }
    }
}
