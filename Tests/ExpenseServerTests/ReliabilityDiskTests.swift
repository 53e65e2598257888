import TestSupport
import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import SQLite
import Testing
@testable import ExpenseServer

/// Disk trouble injected behind the storage interface (``StoreFaults``, given to every ``SQLiteLedgerStore`` the
/// directory opens),
/// seen from a client on the wire.
@Suite(.serialized) struct ReliabilityDiskTests {
    private static func put(_ mutationId: Int, _ id: UUID = UUID(), amount: Int = 100) -> String {
        #"{"jsonrpc":"2.0","id":\#(mutationId + 100),"method":"push","params":{"mutations":[{"mutationId":\#(mutationId),"type":"put","id":"\#(id)","baseVersion":0,"fields":{"amount":\#(amount),"category":"food","date":"2026-11-30"}}]}}"#
    }

    private static func startServer(_ directory: String, log: LogCapture, faults: StoreFaults) throws -> (Server, LedgerDirectory) {
        let ledgers = try LedgerDirectory(dataDirectory: directory, defaultCurrency: .usd, faults: faults)
        var configuration = ServerConfiguration()
        configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
        let server = try Server(configuration: configuration, ledgers: ledgers, log: log.log)
        server.start()
        return (server, ledgers)
    }

    @Test func aFailedFsyncIsAnErrorRefusesLaterWritesAndRecoversOnlyByReopening() async throws {
        let temporary = try TemporaryDirectory("expensed-disk"), directory = temporary.file("data")
        defer { temporary.remove() }
        let log = LogCapture()
        let faults = StoreFaults()
        let (server, ledgers) = try Self.startServer(directory, log: log, faults: faults)
        let token = try String(contentsOfFile: directory + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let clientId = UUID()
        let second = UUID()
        try await onOwnThread {
            let client = try RawClient(server)
            try client.send(LedgerServerHarness.hello(token: token, clientId: clientId))
            _ = try client.receiveResult()
            try client.send(Self.put(1))
            #expect(try PushResult(json: try #require(try client.receiveResult()).result).results.first?.status == .applied(version: 1, seq: 1))

            faults.inject { point in
                point == .commit ? SQLiteError(code: .ioerrFsync, message: "disk I/O error", path: directory) : nil
            }
            try client.send(Self.put(2, second))
            let failed = try #require(try client.receiveError())
            #expect(failed.error.code == RPCError.internalErrorCode)
            #expect(failed.error.reason == "storage_failed")
            #expect(log.all.contains { $0.contains("storage_failed") }, "the log does not say the write failed")

            // The fault is gone, but after a failed fsync the daemon does not retry and pretend.
            faults.inject(nil)
            try client.send(Self.put(2, second))
            let refused = try #require(try client.receiveError())
            #expect(refused.error.code == RPCError.internalErrorCode)
            #expect(refused.error.reason == "ledger_failed")
            // Reads still answer, and show only what was acknowledged.
            try client.send(RawClient.request(id: 3, method: "pull", params: #"{"since":0}"#))
            let pulled = try PullResult(json: try #require(try client.receiveResult()).result)
            #expect(pulled.changes.count == 1)
            try client.send(RawClient.request(id: 4, method: "summary"))
            #expect(try SummaryResult(json: try #require(try client.receiveResult()).result).summary.totals.first?.count == 1)
        }
        server.stop()
        await server.waitUntilStopped()
        await ledgers.close()

        // Recovery: the daemon re-opens the file (a restart); the client resends with the same id.
        let (again, reopened) = try Self.startServer(directory, log: log, faults: faults)
        try await onOwnThread {
            let client = try RawClient(again)
            try client.send(LedgerServerHarness.hello(token: token, clientId: clientId))
            let hello = try HelloResult(json: try #require(try client.receiveResult()).result)
            #expect(hello.lastMutationId == 1)
            try client.send(Self.put(2, second))
            #expect(try PushResult(json: try #require(try client.receiveResult()).result).results.first?.status == .applied(version: 1, seq: 2))
        }
        again.stop()
        await again.waitUntilStopped()
        await reopened.close()
        #expect(!log.all.contains { $0.contains(token) })
    }

    @Test func aFullDiskRefusesThePushWithoutConsumingIdsAndRecoversWhenSpaceReturns() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            let watcher = try harness.greetedClient()
            let faults = harness.faults
            faults.inject { point in
                point == .write ? SQLiteError(code: .full, message: "database or disk is full", path: harness.directory) : nil
            }
            let id = UUID()
            try client.send(Self.put(1, id))
            let full = try #require(try client.receiveError())
            #expect(full.error.code == RPCError.internalErrorCode)
            #expect(full.error.reason == "storage_full")
            #expect(harness.log.all.contains { $0.contains("storage_full") })
            // Another client's pushes are refused the same way while the disk is full; reads go on.
            try watcher.send(Self.put(1))
            #expect(try watcher.receiveError()?.error.reason == "storage_full")
            try watcher.send(RawClient.request(id: 9, method: "pull", params: #"{"since":0}"#))
            #expect(try PullResult(json: try #require(try watcher.receiveResult()).result).changes.isEmpty)

            faults.inject(nil)
            // Space is back: the same mutationId applies (it was not consumed), nothing needed a restart.
            try client.send(Self.put(1, id))
            #expect(try PushResult(json: try #require(try client.receiveResult()).result).results.first?.status == .applied(version: 1, seq: 1))
            try client.send(Self.put(2))
            #expect(try PushResult(json: try #require(try client.receiveResult()).result).results.first?.status == .applied(version: 1, seq: 2))
        }
    }
}
