import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// Where a test may make the store fail, as a full disk or a failed write/fsync would.
package enum StoreFaultPoint: Sendable, Hashable {
    /// Writing one record.
    case write
    /// Committing (the fsync, when the store syncs at COMMIT).
    case commit
    /// Our own fdatasync of the WAL after COMMIT (``WALSync``), on whichever thread runs it.
    case sync
    /// A background checkpoint (``WALCheckpointer``), on the checkpoint thread, before it starts.
    case checkpoint
}

/// The daemon's ``LedgerStore``: one SQLite database file per ledger, WAL mode, `synchronous=FULL` (until the
/// ``Ledger`` that serves it takes over its syncs and checkpoints: `SQLiteLedgerStore+Durability.swift`).
///
/// - Important: One serial owner (the ``Ledger`` actor's thread). Caches (head, live totals per currency,
///   pending aggregate deltas, last consumed mutationIds) change only inside ``transaction(_:)`` and are
///   restored (or never taken over) when it fails, so they always equal what the file holds.
package final class SQLiteLedgerStore: LedgerStore {
    let connection: SQLiteConnection
    /// The ledger's name and currency, from the `meta` table (its tokens are in `tokens`:
    /// `SQLiteLedgerStore+Tokens.swift`).
    package let name: String
    package let currency: Currency
    /// The ledger's id and history epoch (`meta`; see `SQLiteLedgerStore+Identity.swift`).
    package let identity: LedgerIdentity
    package internal(set) var head: Int64
    /// Test hook: an error to throw at a fault point instead of going on.
    package var faultInjection: ((StoreFaultPoint) -> (any Error)?)?

    private var totals: [Currency: Int64]
    /// Where each record is: its current seq (the records table's key). Changed only inside a transaction,
    /// with `undo` to put it back when the transaction fails. Compact (`SeqByIdMap.swift`): it is most of a
    /// large ledger's share of the daemon's memory.
    var seqById: SeqByIdMap
    var undo: [(id: UUID, seq: Int64?)] = []
    /// The budget, rule or setting the last ``writeData(_:replacing:)`` wrote and its seq before, for the
    /// `previous` link of its history entry (data ids never enter `seqById`).
    var lastDataWrite: (id: UUID, previous: Int64)?
    private var pendingDeltas: [AggregateKey: Delta] = [:]
    /// Each client's last consumed mutationId as committed, read through from the `clients` table (this store
    /// is the file's only writer, so the copy cannot go stale). Updated only after a commit succeeds.
    private var lastMutationIds: [UUID: Int64] = [:]
    /// The transaction's new last consumed mutationIds, written once per client when it commits (a client that
    /// pushes several times in one group commit costs one row write, not one per push).
    var pendingLastMutationIds: [UUID: Int64] = [:]
    /// The transaction's newly consumed mutations' outcomes, written when it commits
    /// (`SQLiteLedgerStore+Outcomes.swift`), and their keys in the order they were kept (the order written).
    var pendingOutcomes: [OutcomeKey: ConsumedOutcome] = [:]
    var pendingOutcomeKeys: [OutcomeKey] = []
    /// The transaction's history entries with their `previous` links, written when it commits
    /// (`SQLiteLedgerStore+History.swift`; nothing reads the history inside a push's transaction).
    var pendingHistory: [(entry: HistoryEntry, previous: Int64)] = []
    /// The transaction's new record versions by seq (``record(id:)`` reads them here), their seqs in the order
    /// written, and the seqs of committed rows they replace: written when it commits (``flushRecords()``).
    var pendingRecords: [Int64: StoredRecord] = [:]
    var pendingRecordSeqs: [Int64] = []
    var pendingRecordDeletes: [Int64] = []
    /// Every id that may be in `data_records` (a superset: ids are added when written, never removed), read on
    /// first use: an id outside it is no data record without asking the table (`SQLiteLedgerStore+Data.swift`).
    var dataIds: Set<UUID>?
    /// The group's multi-row statements (``SQLiteLedgerRows``).
    lazy var rows = SQLiteLedgerRows(connection: connection)
    package let outcomeRetention: Int64
    /// `PRAGMA data_version` when ``tokensMayHaveChanged()`` last looked: it moves when another connection commits.
    var dataVersion: Int64 = 0

    /// One row of `daily_totals` or `monthly_totals`: the category by its bytes (``ExpenseCore/ExactText``), as
    /// the table's key compares it. With `String`'s `==`, "café" in NFC and in NFD would share one delta and
    /// write it to one spelling's row, so the other spelling's totals would drift from its records.
    struct AggregateKey: Hashable {
        var day: Int
        var category: String
        var currency: String

        static func == (lhs: AggregateKey, rhs: AggregateKey) -> Bool {
            lhs.day == rhs.day && lhs.currency == rhs.currency && ExactText.same(lhs.category, rhs.category)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(day)
            hasher.combine(currency)
            ExactText.hash(category, into: &hasher)
        }
    }

    struct Delta {
        var amount: Int64 = 0
        var count: Int64 = 0
    }

    /// Opens the database at `path`, creating it (with `name`, `currency` and, when `token` is given, that token
    /// as the owner token `default`, stored as its SHA-256) if it is new. An existing ledger keeps the name and
    /// currency it was created with; a file older than migration 3 has its single token moved to `tokens`.
    /// - Throws: ``LedgerError/damagedDatabase(path:report:)`` for a file that is not a sound ledger;
    ///   ``SQLite/SQLiteError`` otherwise.
    package init(path: String, name: String, currency: Currency, token: String? = nil, verify: Bool = false,
                 outcomeRetention: Int64 = ConsumedOutcome.defaultRetention) throws {
        self.outcomeRetention = outcomeRetention
        do {
            connection = try SQLiteConnection(path: path, mode: .create)
            // An 8 MiB page cache: pushes append at the end of `records` and `history` and touch small tables, a
            // pull reads once in seq order, so a larger cache only kept a large ledger's pages resident (64 MiB of
            // an idle daemon's RSS; docs/benchmarks.md, "Round 4, memory").
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -8192; PRAGMA wal_autocheckpoint = 8192;")
            if verify, let report = try connection.check() {
                throw LedgerError.damagedDatabase(path: path, report: report)
            }
            let versionBefore = try connection.prepare("PRAGMA user_version").first { $0.int64(0) } ?? 0
            try connection.migrate(Self.migrations)
            if versionBefore > 0 && versionBefore <= Self.moneyMigration { try connection.execute("VACUUM") }
            var meta: [String: String] = [:]
            try connection.prepare("SELECT key, value FROM meta").forEach { meta[$0.text(0)] = $0.text(1) }
            if meta.isEmpty {
                meta = ["name": name, "currency": currency.code]
                let connection = self.connection
                try connection.transaction {
                    for (key, value) in meta {
                        try connection.cached("INSERT INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
                    }
                    if let token {
                        try Self.insertToken(StoredToken(name: Self.firstTokenName, role: .owner, digest: Token.digest(token),
                                                      created: Self.now()), connection: connection)
                    }
                }
            } else if let legacyToken = meta["token"] {
                try Self.convertLegacyToken(legacyToken, connection: connection)
            }
            guard let storedName = meta["name"], let code = meta["currency"], let storedCurrency = Currency(code: code) else {
                throw LedgerError.damagedDatabase(path: path, report: "the meta table has no valid name and currency")
            }
            self.name = storedName
            self.currency = storedCurrency
            self.identity = try Self.loadIdentity(meta, connection: connection)
            head = try connection.prepare("SELECT max(seq) FROM records").first { $0.int64(0) } ?? 0
            head = max(head, try Self.dataHead(connection))
            var totals: [Currency: Int64] = [:]
            try connection.prepare("SELECT currency, sum(amount) FROM monthly_totals GROUP BY currency").forEach { row in
                guard let currency = Currency(code: row.text(0)) else { return }
                totals[currency] = row.int64(1)
            }
            self.totals = totals
            var seqById = SeqByIdMap()
            seqById.reserveCapacity(Int(try connection.prepare("SELECT count(*) FROM records").first { $0.int64(0) } ?? 0))
            try connection.prepare("SELECT id, seq FROM records").forEach { row in
                seqById[try Self.uuid(row.blob(0))] = row.int64(1)
            }
            self.seqById = seqById
            dataVersion = try connection.prepare("PRAGMA data_version").first { $0.int64(0) } ?? 0
        } catch let error as SQLiteError where error.isCorruption {
            throw LedgerError.damagedDatabase(path: path, report: error.message)
        }
    }

    package func record(id: UUID) throws -> StoredRecord? {
        guard let seq = seqById[id] else { return nil }
        if let pending = pendingRecords[seq] { return pending }
        return try connection.cached(literal: """
            SELECT seq, version, deleted, amount, currency, category, day, note,
                   money_version, category_version, date_version, note_version
            FROM records WHERE seq = ?1
            """).first([.integer(seq)]) { row in
            try Self.decode(row, id: id, from: 0)
        }
    }

    package func liveTotal(currency: Currency) throws -> Int64 { totals[currency] ?? 0 }

    package func lastMutationId(clientId: UUID) throws -> Int64 {
        if let pending = pendingLastMutationIds[clientId] { return pending }
        if let committed = lastMutationIds[clientId] { return committed }
        let stored = try connection.cached(literal: "SELECT last_mutation_id FROM clients WHERE id = ?1")
            .first([Self.blob(clientId)]) { $0.int64(0) } ?? 0
        lastMutationIds[clientId] = stored
        return stored
    }

    package func setLastMutationId(clientId: UUID, _ mutationId: Int64) throws {
        pendingLastMutationIds[clientId] = mutationId
    }

    /// Writes the transaction's last consumed mutationIds, one row per client, in the same transaction as the
    /// effects they account for.
    private func flushLastMutationIds() throws {
        let clients = Array(pendingLastMutationIds)
        try rows.clients.run(count: clients.count) { row, index in
            try Self.bind(clients[index].key, to: &row)
            try row.integer(clients[index].value)
        }
    }

    /// Keeps `record` for the group's multi-row writes before COMMIT (``flushRecords()``); ``record(id:)`` answers
    /// it from memory until then.
    package func write(_ record: StoredRecord, replacing old: StoredRecord?) throws {
        precondition(record.seq == head + 1, "a write takes the next seq")
        if let error = faultInjection?(.write) { throw error }
        let expense = record.expense
        // A version written earlier in this transaction is replaced before it reaches the table.
        if let old, pendingRecords.removeValue(forKey: old.seq) == nil { pendingRecordDeletes.append(old.seq) }
        pendingRecords[record.seq] = record
        pendingRecordSeqs.append(record.seq)
        undo.append((expense.id, seqById.updateValue(record.seq, forKey: expense.id)))
        if let old, !old.deleted { account(old.expense, sign: -1) }
        if !record.deleted { account(expense, sign: 1) }
        head = record.seq
    }

    /// Writes the transaction's record changes: the replaced versions' rows go, then the new rows, in seq order.
    private func flushRecords() throws {
        try rows.recordDeletes.run(count: pendingRecordDeletes.count) { row, index in
            try row.integer(pendingRecordDeletes[index])
        }
        let written = pendingRecordSeqs.compactMap { pendingRecords[$0] }
        try rows.records.run(count: written.count) { row, index in
            let record = written[index], expense = record.expense, versions = record.fieldVersions
            try row.integer(record.seq)
            try Self.bind(expense.id, to: &row)
            try row.integer(record.version)
            try row.integer(record.deleted ? 1 : 0)
            try row.integer(expense.amount)
            try row.text(expense.currency.code)
            try row.text(expense.category)
            try row.integer(Int64(expense.date.ordinal))
            try row.text(expense.note)
            try row.integer(versions.money)
            try row.integer(versions.category)
            try row.integer(versions.date)
            try row.integer(versions.note)
        }
    }

    private func account(_ expense: Expense, sign: Int64) {
        let key = AggregateKey(day: expense.date.ordinal, category: expense.category, currency: expense.currency.code)
        pendingDeltas[key, default: Delta()].amount += sign * expense.amount
        pendingDeltas[key, default: Delta()].count += sign
        let total = (totals[expense.currency] ?? 0).addingReportingOverflow(sign * expense.amount)
        precondition(!total.overflow, "the rules check overflow before writing")
        totals[expense.currency] = total.partialValue
    }

    package func changes(since: Int64, limit: Int) throws -> [Record] {
        try connection.cached("""
            SELECT seq, version, deleted, amount, currency, category, day, note,
                   money_version, category_version, date_version, note_version, id
            FROM records WHERE seq > ?1 ORDER BY seq LIMIT ?2
            """).map([.integer(since), .integer(Int64(limit))]) { row in
            try Self.decode(row, id: try Self.uuid(row.blob(12)), from: 0).record
        }
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T {
        let savedHead = head
        let savedTotals = totals
        pendingDeltas.removeAll(keepingCapacity: true)
        pendingLastMutationIds.removeAll(keepingCapacity: true)
        clearPendingRows()
        undo.removeAll(keepingCapacity: true)
        do {
            let value = try connection.transaction {
                let value = try body()
                try flushRecords()
                try flushLastMutationIds()
                try flushOutcomes()
                try flushHistory()
                try flushAggregates()
                if let error = faultInjection?(.commit) { throw error }
                return value
            }
            pendingDeltas.removeAll(keepingCapacity: true)
            lastMutationIds.merge(pendingLastMutationIds) { _, new in new }
            pendingLastMutationIds.removeAll(keepingCapacity: true)
            clearPendingRows()
            return value
        } catch {
            head = savedHead
            totals = savedTotals
            for (id, seq) in undo.reversed() { seqById[id] = seq }
            undo.removeAll(keepingCapacity: true)
            pendingDeltas.removeAll(keepingCapacity: true)
            pendingLastMutationIds.removeAll(keepingCapacity: true)
            clearPendingRows()
            throw error
        }
    }

    /// Writes the transaction's aggregate changes, day and month, in the same transaction as the records: one
    /// row per key the group touched, whatever the number of its changes.
    private func flushAggregates() throws {
        var daily: [(key: AggregateKey, delta: Delta)] = []
        var monthly: [AggregateKey: Delta] = [:]
        for (key, delta) in pendingDeltas where delta.amount != 0 || delta.count != 0 {
            daily.append((key, delta))
            var month = key
            month.day = key.day / 100
            monthly[month, default: Delta()].amount += delta.amount
            monthly[month, default: Delta()].count += delta.count
        }
        try apply(daily, rows: rows.dailyTotals, table: "daily_totals", column: "day")
        try apply(monthly.filter { $0.value.amount != 0 || $0.value.count != 0 }.map { (key: $0.key, delta: $0.value) },
                  rows: rows.monthlyTotals, table: "monthly_totals", column: "month")
    }

    /// Adds each delta to its key's row (creating it), then removes the rows whose count fell to 0.
    private func apply(_ deltas: [(key: AggregateKey, delta: Delta)], rows statement: SQLiteRowStatement,
                       table: String, column: String) throws {
        try statement.run(count: deltas.count) { row, index in
            let (key, delta) = deltas[index]
            try row.integer(Int64(key.day))
            try row.text(key.category)
            try row.text(key.currency)
            try row.integer(delta.amount)
            try row.integer(delta.count)
        }
        for (key, delta) in deltas where delta.count < 0 {
            try connection.cached("DELETE FROM \(table) WHERE \(column) = ?1 AND category = ?2 AND currency = ?3 AND count = 0")
                .run([.integer(Int64(key.day)), .text(key.category), .text(key.currency)])
        }
    }

    /// Copies the database consistently to `path` with SQLite's online backup API.
    package func backup(to path: String) throws { try connection.backup(to: path) }

    // MARK: - Encoding

    static func blob(_ id: UUID) -> SQLiteValue { .blob(UUIDBlob.bytes(id)) }

    /// Binds `id`'s 16 bytes (``ExpenseCore/UUIDBlob``'s layout) without an array.
    static func bind(_ id: UUID, to row: inout SQLiteRowBinder) throws {
        try withUnsafeBytes(of: id.uuid) { try row.blob($0) }
    }

    static func uuid(_ bytes: [UInt8]) throws -> UUID {
        guard let id = UUIDBlob.uuid(bytes) else { throw LedgerError.storageFailed("a stored id is not 16 bytes") }
        return id
    }

    /// A stored row back into a record. The values were validated before they were written; a row that no
    /// longer decodes means the file was changed behind the daemon's back.
    static func decode(_ row: SQLiteRow, id: UUID, from column: Int32) throws -> StoredRecord {
        let c = column
        guard let currency = Currency(code: row.text(c + 4)), let day = CalendarDay(ordinal: row.int(c + 6)) else {
            throw LedgerError.storageFailed("record \(UUIDText.lowercased(id)) has an invalid currency or date in the database")
        }
        let expense = Expense(id: id, amount: row.int64(c + 3), currency: currency, category: row.text(c + 5),
                              date: day, note: row.text(c + 7))
        let record = Record(expense: expense, version: row.int64(c + 1), seq: row.int64(c), deleted: row.int64(c + 2) != 0)
        let versions = FieldVersions(money: row.int64(c + 8), category: row.int64(c + 9), date: row.int64(c + 10),
                                     note: row.int64(c + 11))
        return StoredRecord(record: record, fieldVersions: versions)
    }
}
