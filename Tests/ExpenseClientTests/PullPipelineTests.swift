import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Glibc
import Synchronization
import Testing

/// The pull reader asks for the next page as soon as a page's line has arrived (on the cursor its end
/// announces), before decoding it; and a SQLite bulk load appends a hundred rows per INSERT.
@Suite struct PullPipelineTests {
    /// Many small pages, first into an empty SQLite cache (bulk load: full and partial multi-row INSERTs), then
    /// again after changes (record by record): the cache equals the daemon.
    @Test func manyPagesArriveInOrderAndComplete() async throws {
        let daemon = try TestDaemon()
        let writer = try TestClient("writer")
        var ids: [UUID] = []
        for index in 0..<1_050 {
            ids.append(try writer.add(Int64(100 + index), "cat\(index % 7)", note: "n\(index)").id)
        }
        try await writer.sync(daemon)
        let reader = try TestClient("reader", persistent: true)
        var engine = reader.engine(daemon)
        engine.configuration.pullLimit = 100
        let first = try await onOwnThread { [engine] in try engine.sync() }
        #expect(first.pulled == 1_050)
        #expect(try reader.live() == writer.live())

        for id in ids.prefix(250) { try writer.edit(id, ExpenseDraft(note: "edited")) }
        for id in ids.suffix(30) { try writer.delete(id) }
        try await writer.sync(daemon)
        let second = try await onOwnThread { [engine] in try engine.sync() }
        #expect(second.pulled == 280)
        #expect(try reader.live() == writer.live())
        let head = try daemon.ledger.head
        #expect(try reader.ledger.pullCursor() == head)
        await daemon.stop()
    }

    /// A line whose end announces another cursor than its result holds (a member the client ignores): the request
    /// sent on that guess is answered and dropped, the right page is asked for, and the sync completes.
    @Test func aWrongGuessIsDroppedAndTheRightPageAskedFor() async throws {
        let day = try #require(CalendarDay("2026-03-01"))
        let records = (1...3).map { seq in
            Record(expense: Expense(id: UUID(), amount: 100 * seq, currency: .usd, category: "food", date: day, note: ""),
                   version: 1, seq: seq, deleted: false)
        }
        let daemon = try CannedDaemon { method, since, id in
            switch (method, since) {
            case ("hello", _):
                return RPCResponse.success(id: id, result: HelloResult(protocolVersion: ProtocolVersion.current, server: "canned",
                                                                         ledger: "default", currency: .usd, cursor: 3,
                                                                         lastMutationId: 0))
            case ("pull", 0):
                // The result says cursor 2; the line's end, an envelope member clients ignore, says 77.
                var line = RPCResponse.success(id: id, result: PullResult(changes: Array(records.prefix(2)), cursor: 2, more: true))
                line.removeLast(2)  // `}\n`
                return line + Array(#","x":{"y":0,"cursor":77,"more":true}}"#.utf8) + [0x0A]
            case ("pull", 2):
                return RPCResponse.success(id: id, result: PullResult(changes: [records[2]], cursor: 3, more: false))
            default:
                return RPCResponse.error(id: id, .invalidCursor("no page after \(since)"))
            }
        }
        let client = try TestClient("client", persistent: true)
        var engine = SyncEngine(ledger: client.ledger, remote: RemoteConfiguration(server: "127.0.0.1:\(daemon.port)",
                                                                                  ledger: "default", token: "t"))
        engine.configuration.timeout = .seconds(20)
        engine.configuration.connectTimeout = .seconds(20)
        let report = try await onOwnThread { [engine] in try engine.sync() }
        #expect(report.pulled == 3)
        #expect(Set(try client.live().keys) == Set(records.map(\.expense.id)))
        #expect(try client.ledger.pullCursor() == 3)
        daemon.stop()
        #expect(daemon.pullSinces == [0, 77, 2])
    }
}

/// A one-connection daemon on 127.0.0.1 that answers each request line with `answer(method, since, id)`.
final class CannedDaemon: Sendable {
    private let socket: ListeningSocket
    private let sinces = Mutex<[Int64]>([])
    private let done = DispatchSemaphore(value: 0)
    var port: UInt16 { socket.boundAddress.port }
    /// The `since` of every `pull`, in order.
    var pullSinces: [Int64] { sinces.withLock { $0 } }

    init(answer: @escaping @Sendable (String, Int64, RequestID) -> [UInt8]) throws {
        socket = try ListeningSocket(address: SocketAddress(host: "127.0.0.1", port: 0))
        let thread = Thread { [self] in
            serve(answer)
            done.signal()
        }
        thread.start()
    }

    /// Waits until the client has closed its connection.
    func stop() {
        done.wait()
        socket.close()
    }

    private func serve(_ answer: (String, Int64, RequestID) -> [UInt8]) {
        var poller = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 20_000) == 1 else { return }
        let fd = accept(socket.fileDescriptor, nil, nil)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var framer = LineFramer(maximumLineLength: 1 << 20)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            while case .line(let line)? = framer.nextLine() {
                guard let request = try? JSONParser.parse(line), let method = request["method"]?.stringValue,
                      let id = request["id"].flatMap(RequestID.init(json:)) else { return }
                let since = request["params"]?["since"]?.int64Value ?? 0
                if method == "pull" { sinces.withLock { $0.append(since) } }
                let reply = answer(method, since, id)
                guard reply.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == reply.count else { return }
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            buffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }
}
