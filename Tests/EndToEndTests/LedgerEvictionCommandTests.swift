import Foundation
import TestSupport
import Testing

/// `expensed serve --max-open-ledgers N`: more ledgers than the bound are served in turn, each closed (its
/// queued commits written) to open the next, and no acknowledged change is lost or doubled. Every connection
/// closes before the next opens, so each `hello` evicts the ledger used before it.
@Suite struct LedgerEvictionCommandTests {
    @Test func moreLedgersThanTheBoundAreServedInTurnWithNothingLostOrDoubled() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let names = ["a", "b", "c"]
            var tokens: [String: String] = [:]
            for name in names {
                let added = try scratch.run(["ledger", "add", name, "--data", data], executable: ExpenseProcess.daemonExecutable)
                tokens[name] = added.stdout.trimmingCharacters(in: .newlines)
            }
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory, ["--max-open-ledgers", "1"])
            defer { _ = daemon.stop() }
            let clientId = UUID()
            var acknowledged: [String: Set<UUID>] = [:]
            for round in 0..<4 {
                for name in names {
                    let client = try WireClient(try daemon.address())
                    let hello = try client.hello(token: try #require(tokens[name]), clientId: clientId, ledger: name)
                    #expect(hello.lastMutationId == Int64(round * 5), "\(name), round \(round)")
                    let created = try client.pushCreates(count: 5, firstMutationId: Int64(round * 5 + 1))
                    acknowledged[name, default: []].formUnion(created.keys)
                    client.close()
                }
            }
            for name in names {
                let client = try WireClient(try daemon.address())
                _ = try client.hello(token: try #require(tokens[name]), clientId: UUID(), ledger: name)
                let ids = try client.pullAll().map(\.expense.id)
                #expect(ids.count == 20 && Set(ids) == acknowledged[name], "\(name): \(ids.count) records")
                client.close()
            }
            #expect(daemon.stop().status == 0)
            // Twelve switches between three ledgers with room for one: ledgers were closed to open others (a
            // connection's close may reach the daemon after the next `hello`, so not necessarily at every switch).
            let closes = daemon.stderr.split(separator: "\n").filter { $0.contains("(unused)") }
            #expect(!closes.isEmpty, "\(daemon.stderr)")
        }
    }
}
