import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Glibc
import Synchronization
import Testing

/// The pull reader asks for the next page as soon as a page's line begins to arrive (on the cursor its first
/// bytes announce, or an older daemon's line end), before decoding it; and a SQLite bulk load appends a hundred
/// rows per INSERT.
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
                return CannedDaemon.hello(id: id, cursor: 3)
            case ("pull", 0):
                // A daemon of the older layout (`changes` first): the result says cursor 2; the line's end, an
                // envelope member clients ignore, says 77.
                var writer = JSONWriter()
                writer.raw(#"{"jsonrpc":"2.0","id":"#)
                writer.requestID(id)
                writer.raw(#","result":{"changes":["#)
                records[0].write(to: &writer)
                records[1].write(to: &writer)
                writer.raw(#"],"cursor":2,"more":true},"x":{"y":0,"cursor":77,"more":true}}"#)
                return writer.bytes + [0x0A]
            case ("pull", 2):
                return RPCResponse.success(id: id, result: PullResult(changes: [records[2]], cursor: 3, more: false))
            default:
                return RPCResponse.error(id: id, .invalidCursor("no page after \(since)"))
            }
        }
        let client = try TestClient("client", persistent: true)
        let report = try await daemon.sync(client)
        #expect(report.pulled == 3)
        #expect(Set(try client.live().keys) == Set(records.map(\.expense.id)))
        #expect(try client.ledger.pullCursor() == 3)
        daemon.stop()
        #expect(daemon.pullSinces == [0, 77, 2])
    }

    /// The next page is asked for from the first bytes of a page's line, before the rest of it has arrived: a
    /// daemon that sends the first 120 bytes of each page but the last and holds back the rest until the next
    /// request comes gets that request every time (a reader that waited for whole lines would make it wait 10 s
    /// per page).
    @Test func theNextPageIsAskedForBeforeThisOneHasArrived() async throws {
        let day = try #require(CalendarDay("2026-03-01"))
        let records = (1...6).map { seq in
            Record(expense: Expense(id: UUID(), amount: 100 * seq, currency: .usd, category: "food", date: day,
                                    note: String(repeating: "n", count: 200)),
                   version: 1, seq: seq, deleted: false)
        }
        let daemon = try CannedDaemon(holdingBack: { since in since < 4 ? 120 : nil }) { method, since, id in
            switch method {
            case "hello":
                return CannedDaemon.hello(id: id, cursor: 6)
            case "pull" where (0...4).contains(since) && since % 2 == 0:
                // Pages of two: since 0, 2 and 4; the last says no more.
                let page = PullResult(changes: Array(records[Int(since)..<Int(since) + 2]), cursor: since + 2, more: since < 4)
                return page.responseLine(id: id, maximumLineLength: 1 << 20)
            default:
                return RPCResponse.error(id: id, .invalidCursor("no page after \(since)"))
            }
        }
        let client = try TestClient("client", persistent: true)
        let report = try await daemon.sync(client)
        #expect(report.pulled == 6)
        #expect(try client.ledger.pullCursor() == 6)
        daemon.stop()
        #expect(daemon.pullSinces == [0, 2, 4])
        #expect(daemon.earlyRequests == 2)  // the pages of 0 and 2; the last one has no next
    }
}

/// A one-connection daemon on 127.0.0.1 that answers each request line with `answer(method, since, id)`.
///
/// With `holdingBack`, the answer to a `pull` from a `since` it gives a byte count for is sent in two parts: that
/// many first bytes, then, once another request has arrived (or after 10 s), the rest; ``earlyRequests`` counts
/// the pages whose next request came before their rest was sent.
final class CannedDaemon: Sendable {
    private let socket: ListeningSocket
    private let sinces = Mutex<[Int64]>([])
    private let early = Mutex(0)
    private let done = DispatchSemaphore(value: 0)
    var port: UInt16 { socket.boundAddress.port }
    /// The `since` of every `pull`, in order.
    var pullSinces: [Int64] { sinces.withLock { $0 } }
    /// How many held-back pages had the next request arrive before their rest.
    var earlyRequests: Int { early.withLock { $0 } }

    init(holdingBack: @escaping @Sendable (Int64) -> Int? = { _ in nil },
         answer: @escaping @Sendable (String, Int64, RequestID) -> [UInt8]) throws {
        socket = try ListeningSocket(address: SocketAddress(host: "127.0.0.1", port: 0))
        let thread = Thread { [self] in
            serve(holdingBack: holdingBack, answer)
            done.signal()
        }
        thread.start()
    }

    /// The answer to `hello` of a ledger in USD whose head is `cursor`.
    static func hello(id: RequestID, cursor: Int64) -> [UInt8] {
        RPCResponse.success(id: id, result: HelloResult(protocolVersion: ProtocolVersion.current, server: "canned",
                                                         ledger: "default", currency: .usd, cursor: cursor, lastMutationId: 0))
    }

    /// A sync of `client` with this daemon, on a thread of its own (timeouts far above what any test waits).
    func sync(_ client: TestClient) async throws -> SyncEngine.Report {
        var engine = SyncEngine(ledger: client.ledger, remote: RemoteConfiguration(server: "127.0.0.1:\(port)",
                                                                                  ledger: "default", token: "t"))
        engine.configuration.timeout = .seconds(30)
        engine.configuration.connectTimeout = .seconds(20)
        return try await onOwnThread { [engine] in try engine.sync() }
    }

    /// Waits until the client has closed its connection.
    func stop() {
        done.wait()
        socket.close()
    }

    private func serve(holdingBack: (Int64) -> Int?, _ answer: (String, Int64, RequestID) -> [UInt8]) {
        var poller = pollfd(fd: socket.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 20_000) == 1 else { return }
        let fd = accept(socket.fileDescriptor, nil, nil)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var framer = LineFramer(maximumLineLength: 1 << 20)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        /// Reads once more into the framer; false when the client has gone.
        func receive(timeout: Int32) -> Bool {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeout) == 1 else { return true }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            buffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            return true
        }
        func send(_ bytes: ArraySlice<UInt8>) -> Bool {
            // MSG_NOSIGNAL: a client that has gone is a failed send, not a SIGPIPE that ends the test process.
            bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }
        var pending: [[UInt8]] = []
        while true {
            while case .line(let line)? = framer.nextLine() { pending.append(Array(line)) }
            guard !pending.isEmpty else {
                guard receive(timeout: 20_000) else { return }
                continue
            }
            let line = pending.removeFirst()
            guard let request = try? JSONParser.parse(line), let method = request["method"]?.stringValue,
                  let id = request["id"].flatMap(RequestID.init(json:)) else { return }
            let since = request["params"]?["since"]?.int64Value ?? 0
            if method == "pull" { sinces.withLock { $0.append(since) } }
            let reply = answer(method, since, id)
            guard method == "pull", let holdingBack = holdingBack(since), reply.count > holdingBack else {
                guard send(reply[...]) else { return }
                continue
            }
            guard send(reply[..<holdingBack]) else { return }
            let deadline = ContinuousClock.now + .seconds(10)
            while pending.isEmpty, ContinuousClock.now < deadline {
                guard receive(timeout: 100) else { return }
                while case .line(let line)? = framer.nextLine() { pending.append(Array(line)) }
            }
            if !pending.isEmpty { early.withLock { $0 += 1 } }
            guard send(reply[holdingBack...]) else { return }
        }
    }
}
