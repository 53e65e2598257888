import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseProtocol
@testable import ExpenseServer

/// The pull pages a store writes straight from its rows (`SQLiteLedgerStore+PullPage.swift`) and the engine's
/// page (``LedgerEngine/pullPage(_:)``) against the general path: the records the store reads one by one
/// (``records(_:since:limit:snapshot:)``), merged with the other kinds as the engine did before the fast path
/// (``generalPage(_:_:)``), written one by one and cut by the rule of Protocol.md §5.3 as it was written before
/// the fast path (``referenceLine(_:id:maximumLineLength:)``); both kept here as the reference.
@Suite(.offTheCooperativePool) struct PullPageEncodingTests {
    /// Every field shape: every currency (every exponent), the smallest and largest amounts, the first and last
    /// days, text with quotes, backslashes, control characters, non-ASCII in NFC and NFD, emoji, the empty note,
    /// edits (versions above 1) and tombstones.
    static func fill(_ engine: LedgerEngine) throws {
        var client = EngineClient(engine)
        let categories = ["food", "caf\u{E9}", "cafe\u{301}", "say \"hi\"", #"back\slash"#, "日本語", "🧾 receipt 👩‍👩‍👧",
                          String(repeating: "x", count: 60)]
        let notes = categories + ["tab\there", "line\nbreak\n", "", " ", String(repeating: "ü", count: 250)]
        var ids: [UUID] = []
        for (index, currency) in Currency.all.enumerated() {
            let id = UUID()
            ids.append(id)
            let amount: Int64 = [1, 9_007_199_254_740_991, 1250, 99_999][index % 4]
            let date = ["1900-01-01", "9999-12-31", "2026-02-28", "2024-02-29"][index % 4]
            let status = try client.put(id, base: 0, fields(amount: amount, currency: currency.code,
                                                            category: categories[index % categories.count],
                                                            date: date, note: notes[(index * 7) % notes.count]))
            #expect(status.reason == nil)
        }
        for (index, id) in ids.enumerated() where index % 3 == 0 {
            _ = try client.put(id, base: 1, fields(amount: 4242, note: "edited \(index) ✓"))
        }
        for (index, id) in ids.enumerated() where index % 5 == 1 { _ = try client.delete(id, base: 1) }
    }

    @Test("a store's encoded changes are its records as Record.write writes them", arguments: LedgerStoreKind.allCases)
    func storeEncodingEqualsRecordByRecord(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        try Self.fill(ledger.engine)
        let store = ledger.engine.store
        for (since, limit) in [(Int64(0), 10_001), (0, 1), (3, 17), (100, 1000), (store.head - 1, 5), (store.head, 10)] {
            let records = try Self.records(store, since: since, limit: limit, snapshot: nil)
            let encoded = try store.changes(since: since, limit: limit)
            #expect(encoded.seqs == records.map(\.seq))
            for (index, record) in records.enumerated() {
                var writer = JSONWriter()
                record.write(to: &writer)
                #expect(Array(encoded.object(index)) == writer.bytes, "since \(since), record \(index)")
            }
        }
    }

    @Test("the engine's page is the general page, cut at every line length", arguments: LedgerStoreKind.allCases)
    func enginePageEqualsGeneralPage(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        try Self.fill(ledger.engine)
        // Budgets among the expenses: those pages take the general path, the others the fast one.
        var client = EngineClient(ledger.engine)
        for category in ["food", "rent"] {
            let id = try budgetId(category)
            #expect(try client.push { kindItem($0, .budget, id, base: 0, budgetFields(category: category)) }.reason == nil)
            _ = try client.put(UUID(), base: 0, lunch())
        }
        let head = ledger.engine.store.head
        for kinds in [Set<RecordKind>(), Set(RecordKind.additional)] {
            for expenses in [true, false] {
                for (since, limit) in [(Int64(0), 10_000), (0, 7), (50, 20), (head - 3, 2), (head, 1)] {
                    var params = PullRequest(since: since, limit: limit, expenses: expenses)
                    params.kinds = kinds
                    let page = try ledger.engine.pullPage(params)
                    let general = try Self.generalPage(ledger.engine, params)
                    for length in [1, 300, 1_000, 4_096, 60_000, 1 << 24] {
                        let reference = Self.referenceLine(general, id: .number(JSONNumber(9)), maximumLineLength: length)
                        #expect(page.responseLine(id: .number(JSONNumber(9)), maximumLineLength: length) == reference,
                                "kinds \(kinds.count), expenses \(expenses), since \(since), limit \(limit), length \(length)")
                        // The page the daemon reads for its own line (no rows past the line's bytes): the same line.
                        var bounded = params
                        bounded.maximumLineLength = length
                        #expect(try ledger.engine.pullPage(bounded).responseLine(id: .number(JSONNumber(9)),
                                                                                 maximumLineLength: length) == reference,
                                "bounded: kinds \(kinds.count), expenses \(expenses), since \(since), limit \(limit), length \(length)")
                    }
                }
            }
        }
    }

    @Test("the SQLite store reads no rows past the line's bytes: one object past them, then it stops")
    func sqliteStoreStopsAtTheLinesBytes() throws {
        let ledger = try TestLedger(.sqlite)
        try Self.fill(ledger.engine)
        let store = ledger.engine.store
        let all = try store.changes(since: 0, limit: 10_001)
        for maximum in [1, 500, 2_000, 10_000] {
            let bounded = try store.changes(since: 0, limit: 10_001, snapshot: nil, maximumBytes: maximum)
            // The objects of the bounded page, with commas between them, pass `maximum` only by its last one.
            let bytes = (0..<bounded.count).map { bounded.object($0).count }
            #expect(bounded.count >= 2 && bounded.count < all.count, "maximum \(maximum)")
            #expect(bytes.reduce(0, +) + bounded.count - 1 > maximum, "maximum \(maximum)")
            #expect(bytes.dropLast().reduce(0, +) + bounded.count - 2 <= maximum || bounded.count == 2, "maximum \(maximum)")
            #expect(bounded.seqs == Array(all.seqs.prefix(bounded.count)))
            for index in 0..<bounded.count { #expect(bounded.object(index) == all.object(index)) }
        }
    }

    @Test("a damaged row takes the general path: the same error, or the same repaired text")
    func damagedRowsTakeTheGeneralPath() throws {
        let ledger = try TestLedger(.sqlite)
        try Self.fill(ledger.engine)
        let store = try #require(ledger.engine.store as? SQLiteLedgerStore)
        // Text that is not UTF-8: the general path's String repairs it, and so must the page.
        try store.connection.execute("UPDATE records SET note = CAST(x'41ff42' AS TEXT) WHERE seq = (SELECT min(seq) FROM records)")
        let params = PullRequest(since: 0, limit: 10_000)
        #expect(try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
                == Self.referenceLine(try Self.generalPage(ledger.engine, params), id: nil, maximumLineLength: 1 << 24))
        // Control characters a damaged file may hold are escaped the same way.
        try store.connection.execute("UPDATE records SET category = 'a' || char(1) || char(127) || '\\' WHERE seq = (SELECT seq FROM records ORDER BY seq LIMIT 1 OFFSET 1)")
        #expect(try ledger.engine.pullPage(params).responseLine(id: nil, maximumLineLength: 1 << 24)
                == Self.referenceLine(try Self.generalPage(ledger.engine, params), id: nil, maximumLineLength: 1 << 24))
        // A currency no longer known: both refuse the page with the same error.
        try store.connection.execute("UPDATE records SET currency = 'QQQ' WHERE seq = (SELECT max(seq) FROM records)")
        let general = #expect(throws: LedgerError.self) { try Self.generalPage(ledger.engine, params) }
        let fast = #expect(throws: LedgerError.self) { try ledger.engine.pullPage(params) }
        #expect(fast.map { "\($0)" } == general.map { "\($0)" })
    }

    /// The records of a pull page read one by one: the SQLite store's general path, or what another store
    /// writes (it writes its records) read back.
    static func records(_ store: any LedgerStore, since: Int64, limit: Int, snapshot: Int64?) throws -> [Record] {
        if let sqlite = store as? SQLiteLedgerStore { return try sqlite.changedRecords(since: since, limit: limit, snapshot: snapshot) }
        let encoded = try store.changes(since: since, limit: limit, snapshot: snapshot, maximumBytes: .max)
        return try (0..<encoded.count).map { try Record(json: JSONParser.parse(Array(encoded.object($0)))) }
    }

    /// The page as the engine built it before the fast path: the expenses and the other kinds asked for, each up
    /// to `limit + 1`, merged in seq order and cut to `limit`; a store's error is the engine's `storage`.
    static func generalPage(_ engine: LedgerEngine, _ params: PullRequest) throws -> PullResult {
        let store = engine.store
        do {
            let head = store.head
            let expenses = params.expenses ? try records(store, since: params.since, limit: params.limit + 1, snapshot: params.snapshot) : []
            let data = params.kinds.isEmpty ? []
                : try store.dataChanges(since: params.since, limit: params.limit + 1).filter { params.kinds.contains($0.kind) }
            var seqs = (expenses.map(\.seq) + data.map(\.seq)).sorted()
            let more = seqs.count > params.limit
            if more { seqs.removeLast(seqs.count - params.limit) }
            let last = seqs.last ?? head
            return PullResult(changes: expenses.filter { $0.seq <= last }, dataChanges: data.filter { $0.seq <= last },
                              cursor: more ? last : head, more: more)
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// The page cut as `PullResult.responseLine` wrote it before ``EncodedPullPage`` (each record written
    /// into the line, the first that passes the limit taken out again; the line then laid out with its cursor
    /// and `more` first, which does not change its length).
    static func referenceLine(_ result: PullResult, id: RequestID?, maximumLineLength: Int) -> [UInt8] {
        var envelope = JSONWriter()
        envelope.raw(#"{"jsonrpc":"2.0","id":"#)
        envelope.requestID(id)
        envelope.raw(#","result":"#)
        var writer = envelope
        writer.beginObject()
        writer.key("changes")
        writer.beginArray()
        let first = writer.bytes.count
        var kept = 0
        let changes = result.mergedChanges
        for record in changes {
            let start = writer.bytes.count
            record.write(to: &writer)
            if kept > 0, writer.bytes.count + PullResult.maximumTailBytes > maximumLineLength {
                writer.bytes.removeSubrange(start...)
                break
            }
            kept += 1
        }
        let cut = kept < changes.count
        var line = envelope
        line.beginObject()
        line.member("cursor", cut ? changes[kept - 1].seq : result.cursor)
        line.member("more", cut || result.more)
        line.key("changes")
        line.beginArray()
        line.bytes += writer.bytes[first...]
        line.endArray()
        line.endObject()
        line.raw("}\n")
        return line.bytes
    }
}
