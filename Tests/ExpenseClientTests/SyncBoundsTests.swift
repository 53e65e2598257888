import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import Foundation
import Testing

/// Pushes and pull pages are bounded by bytes (Protocol.md §5.2, §5.3): the client splits its queue to the
/// daemon's `maxLine`, a change that cannot fit is rejected locally (`too_large`) without blocking the rest,
/// and the daemon cuts its pages to the same bound.
@Suite(.serialized) struct SyncBoundsTests {
    /// 300 characters, 900 bytes of UTF-8: a valid note near the character limit.
    static let japaneseNote = String(repeating: "日本語の", count: 75)

    static func drafts(_ count: Int, note: String = japaneseNote) -> [ExpenseDraft] {
        (0..<count).map { index in
            ExpenseDraft(amount: Int64(100 + index), currency: "USD", category: "import", date: "2026-03-01", note: note)
        }
    }

    @Test("1000 imported expenses with 300-character Japanese notes sync, under the default and a small --max-line",
          arguments: [1_048_576, 16_384])
    func thousandLongNotesSync(maximumLineLength: Int) async throws {
        let daemon = try TestDaemon(maximumLineLength: maximumLineLength)
        let ann = try TestClient("ann", persistent: true), bob = try TestClient("bob")
        // `hello` announces the daemon's --max-line.
        let engine = bob.engine(daemon)
        let announced = try await onOwnThread { [engine] in
            let connection = try engine.connect()
            defer { connection.close() }
            return connection.hello.maxLine
        }
        #expect(announced == maximumLineLength)
        try ann.ledger.add(Self.drafts(1000))
        let pushes = Counter()
        ann.dependencies.faultInjection = { point, _ in if point == .pushWritten { _ = pushes.increment() } }
        let report = try await ann.sync(daemon)
        #expect(report.pushed == 1000 && report.pending == 0 && report.openRejections == 0, "\(report)")
        // 1000 × ~1,100 bytes do not fit in one line of 1 MiB, so the queue went out in more than one push.
        #expect(pushes.value >= 1000 * 1_000 / maximumLineLength + 1, "\(pushes.value) pushes")
        #expect(try await daemon.records().count == 1000)
        let pulled = try await bob.sync(daemon)
        #expect(pulled.pulled == 1000)
        #expect(try bob.live() == ann.live())
        await daemon.stop()
    }

    @Test("a change too large for the daemon's line is rejected locally as too_large; the rest syncs, ids stay consecutive")
    func oversizedChangeDoesNotBlockTheQueue() async throws {
        let daemon = try TestDaemon(maximumLineLength: 1024)
        let ann = try TestClient("ann", persistent: true)
        try ann.add(100, "small")
        let big = try ann.add(200, "big", note: Self.japaneseNote)  // its push line is ~1,150 bytes
        try ann.add(300, "small")
        try ann.add(400, "small")

        let report = try await ann.sync(daemon)
        #expect(report.pushed == 3 && report.pending == 1 && report.openRejections == 1, "\(report)")
        let queue = try ann.ledger.store.pendingMutations(limit: 10)
        #expect(queue.count == 1 && queue.first?.id == big.id && queue.first?.state == .rejected, "\(queue)")
        #expect(queue.first?.rejection?.reason == "too_large", "\(queue)")
        #expect(queue.first?.rejection?.message.contains("1024") == true, "\(queue)")
        #expect(queue.first?.mutationId == nil)
        // No mutationId was spent on it: the daemon consumed exactly the three that went out.
        let clientId = try #require(try ann.ledger.store.clientId())
        #expect(try await daemon.ledger.hello(clientId: clientId).lastMutationId == 3)
        #expect(try await daemon.records().count == 3)

        // Syncing again changes nothing and sends nothing.
        let again = try await ann.sync(daemon)
        #expect(again.pushed == 0 && again.openRejections == 1, "\(again)")
        #expect(try await daemon.ledger.hello(clientId: clientId).lastMutationId == 3)

        // Later changes still go out, numbered on from 3 with no gap.
        try ann.add(500, "small")
        #expect(try await ann.sync(daemon).pushed == 1)
        #expect(try await daemon.ledger.hello(clientId: clientId).lastMutationId == 4)

        // A shorter note makes it fit: it is sent with the next number.
        try ann.edit(big.id, ExpenseDraft(note: "short"))
        let fixed = try await ann.sync(daemon)
        #expect(fixed.pushed == 1 && fixed.pending == 0 && fixed.openRejections == 0, "\(fixed)")
        #expect(try await daemon.ledger.hello(clientId: clientId).lastMutationId == 5)
        #expect(try await daemon.records()[big.id]?.expense.note == "short")
        await daemon.stop()
    }

    @Test("pull pages are bounded by the daemon's line limit; a page holds at least one record",
          arguments: [16_384, 1024])
    func pullPagesAreBoundedByBytes(maximumLineLength: Int) async throws {
        let daemon = try TestDaemon(maximumLineLength: maximumLineLength)
        let ledger = try daemon.ledger
        let writer = UUID()
        var mutations: [Mutation] = []
        for (index, draft) in Self.drafts(200).enumerated() {
            mutations.append(Mutation(mutationId: Int64(index + 1), type: .put, id: UUID(), baseVersion: 0,
                                      fields: ExpenseFields.json(from: draft)))
        }
        let pushed = try await ledger.push(clientId: writer, items: PushRequest(mutations: mutations).items)
        #expect(pushed.results.allSatisfy { if case .applied = $0.status { true } else { false } })

        let port = daemon.port, token = daemon.token
        let pages = try await onOwnThread { () -> [(bytes: Int, records: Int, more: Bool)] in
            let connection = try LineConnection(connectingTo: SocketAddress(host: "127.0.0.1", port: port))
            defer { connection.close() }
            let hello = HelloRequest(protocolVersion: 1, ledger: "default", token: token, clientId: UUID(), clientName: nil)
            try connection.write(hello.requestLine(id: RequestID(1)))
            _ = try connection.readLine()
            var pages: [(bytes: Int, records: Int, more: Bool)] = []
            var since: Int64 = 0
            var id: Int64 = 2
            while true {
                try connection.write(PullRequest(since: since, limit: 10_000).requestLine(id: RequestID(id)))
                let line = try #require(try connection.readLine())
                let (_, page) = try #require(PullPageDecoder.decode(line), "\(String(decoding: line.prefix(300), as: UTF8.self))")
                pages.append((line.count, page.changes.count, page.more))
                since = page.cursor
                id += 1
                if !page.more { return pages }
            }
        }
        #expect(pages.reduce(0) { $0 + $1.records } == 200)
        #expect(pages.count > 1)
        for page in pages {
            #expect(page.records >= 1)
            // A page passes the bound only when it holds a single record that does not fit on its own.
            #expect(page.bytes <= maximumLineLength || page.records == 1, "\(page)")
        }
        // And the client reads them all.
        let bob = try TestClient("bob")
        #expect(try await bob.sync(daemon).pulled == 200)
        await daemon.stop()
    }

    @Test("a daemon without maxLine is taken to accept 1 MiB; a push it refuses fails with a protocol error naming the change, kept for status")
    func olderDaemonWithoutMaxLine() async throws {
        var configuration = LineServerConfiguration()
        configuration.maximumLineLength = 1024
        let server = try LineServer(address: SocketAddress(host: "127.0.0.1", port: 0), configuration: configuration,
                                    log: { _, _ in }, makeSession: { _ in OlderDaemonSession() })
        server.start()
        defer { server.stop() }
        let ann = try TestClient("ann", persistent: true)
        let big = try ann.add(200, "big", note: Self.japaneseNote)
        var engine = SyncEngine(ledger: ann.ledger, remote: RemoteConfiguration(server: "127.0.0.1:\(server.address.port)",
                                                                                 ledger: "default", token: "t"))
        engine.configuration.attempts = 1
        let hello = try await onOwnThread { [engine] in
            let connection = try engine.connect()
            defer { connection.close() }
            return connection.hello
        }
        #expect(hello.maxLine == HelloResult.assumedMaxLine)
        let error = await #expect(throws: SyncError.self) { try await onOwnThread { [engine] in try engine.sync() } }
        guard case .protocolError(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        let short = String(big.id.uuidString.lowercased().prefix(8))
        #expect(text.contains("line_too_long") && text.contains("while pushing 1 change, mutationId 1") && text.contains(short), "\(text)")
        let recorded = try #require(try ann.ledger.lastSyncFailure())
        #expect(recorded.contains(short) && recorded.hasPrefix("protocol_error: "), "\(recorded)")
        #expect(try ann.ledger.pendingCount() == 1)
    }
}

/// A daemon from before `maxLine` with a 1,024-byte line: answers `hello` without it, and whatever else fits
/// with an error; a longer line gets −32002 `line_too_long`, as `expensed` answers.
private final class OlderDaemonSession: LineSession {
    func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition {
        guard case .success(let request) = RPCRequest.parse(line), let id = request.id else { return .reply([], .proceed) }
        if request.method == HelloRequest.method {
            let hello = #"{"currency":"USD","cursor":0,"lastMutationId":0,"ledger":"default","protocol":1,"server":"expensed 0.0.9"}"#
            return .reply(RPCResponse.success(id: id, result: (try? JSONParser.parse(Array(hello.utf8))) ?? .null), .establish)
        }
        return .reply(RPCResponse.error(id: id, .methodNotFound(request.method)), .proceed)
    }

    func lineTooLong() -> [UInt8] { RPCResponse.error(id: nil, .lineTooLong(limit: 1024)) }

    func closed() {}
}
