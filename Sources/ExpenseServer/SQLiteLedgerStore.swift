import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// The daemon's ``LedgerStore``: one SQLite database file per ledger, WAL mode, `synchronous=FULL`.
///
/// - Important: One serial owner (the ``Ledger`` actor's thread). Caches (head, live totals per currency and per
///   day, the id → seq map, last consumed mutationIds) change only inside ``transaction(_:)`` and are restored
///   (or never taken over) when it fails, so they always equal what the file holds.
package final class SQLiteLedgerStore: LedgerStore {
    let connection: SQLiteConnection
    /// The ledger's name and currency, from the `meta` table (its tokens are in `tokens`:
    /// `SQLiteLedgerStore+Tokens.swift`).
    package let name: String
    package let currency: Currency
    /// The ledger's id and history epoch (`meta`; see `SQLiteLedgerStore+Identity.swift`).
    package let identity: LedgerIdentity
    // The state a push changes per mutation (the head, the totals, the id map, the transaction's pending rows) is
    // used by one thread at a time, its ledger's executor, and never while another access to the same property is
    // open: no mutating method of these values takes a closure or calls back into the store. Swift's run-time
    // exclusivity check of each access (a thread-local access set) cost about 1,900 instructions per mutation of a
    // push (callgrind, `Benchmarks/push-profile`), so these properties go without it.
    @exclusivity(unchecked) package internal(set) var head: Int64
    /// What a test injects (``StoreFaults``); `nil` in the daemon.
    let faults: StoreFaults?
    /// Whether new records are written through ``SQLiteLedgerRows/recordCreations``, their constant columns as
    /// constants (the daemon), or through the general statement, every column bound (a test holds the two to the
    /// same bytes).
    let writesCreationsWithConstants: Bool

    /// The page cache of the work after the open: pushes append at the end of `records` and `history` and touch
    /// small tables, a pull reads once in seq order, so a larger cache only kept a large ledger's pages resident
    /// (with 64 MiB a daemon serving 500,000 expenses started at 124 MiB of RSS, with 8 MiB at 65 MiB).
    static let workCacheKiB = 8192
    /// The page cache of the open's passes over the whole file (the check, the indexes' load): enough for a
    /// b-tree's path, so the pass leaves none of the pages it read resident.
    static let openCacheKiB = 256

    /// The live total of each currency, by its number in ``dayTotals`` (``LiveDayTotals/number(of:)``): no
    /// currency is hashed per record.
    @exclusivity(unchecked) private var totals = LiveDayTotals.CurrencySums()
    /// The live records' totals per day and per month, category and currency (``LiveDayTotals``): derived from
    /// `records` at open, changed by ``write(_:replacing:)``, never written to the file.
    @exclusivity(unchecked) var dayTotals: LiveDayTotals
    /// Where each record is: its current seq (the records table's key). Changed only inside a transaction,
    /// with `undo` to put it back when the transaction fails. Compact (`SeqByIdMap.swift`): it is most of a
    /// large ledger's share of the daemon's memory.
    @exclusivity(unchecked) var seqById: SeqByIdMap
    @exclusivity(unchecked) var undo: [(id: UUID, seq: Int64?)] = []
    /// The creation (``RecordCreation``) of the committed row ``record(id:)`` read last: the version that replaces
    /// it carries it forward without reading the row again.
    @exclusivity(unchecked) var lastReadCreation: (seq: Int64, creation: RecordCreation?)?
    /// The budget, rule or setting the last ``writeData(_:replacing:)`` wrote and its seq before, for the
    /// `previous` link of its history entry (data ids never enter `seqById`).
    var lastDataWrite: (id: UUID, previous: Int64)?
    /// The clients' committed rows, the transaction's changes to them and the outcome log (``SQLiteClientLog``).
    let clientLog = SQLiteClientLog()
    /// The transaction's history rows, written when it commits (`SQLiteLedgerStore+History.swift`; nothing reads
    /// the history inside a push's transaction).
    @exclusivity(unchecked) var pendingHistory: [PendingHistoryRow] = []
    /// The transaction's new record versions (``record(id:)`` reads them there) and the committed rows they
    /// replace: written when it commits (``flushRecords()``).
    @exclusivity(unchecked) var pendingVersions = PendingRecordVersions()
    /// Every id that may be in `data_records` (a superset: ids are added when written, never removed), read on
    /// first use: an id outside it is no data record without asking the table (`SQLiteLedgerStore+Data.swift`).
    @exclusivity(unchecked) var dataIds: Set<UUID>?
    /// The group's multi-row statements (``SQLiteLedgerRows``).
    lazy var rows = SQLiteLedgerRows(connection: connection)
    package let outcomeRetention: Int64
    /// `PRAGMA data_version` when ``tokensMayHaveChanged()`` last looked: it moves when another connection commits.
    var dataVersion: Int64 = 0
    /// Who checkpoints the WAL once ``checkpointInBackground(threshold:name:)`` is on (`nil`: SQLite's automatic
    /// checkpoint, inside a COMMIT every 8,192 frames).
    package internal(set) var checkpointer: WALCheckpointer?

    /// Opens the database at `path`, creating it (with `name`, `currency` and, when `token` is given, that token
    /// as the owner token `default`, stored as its SHA-256) if it is new. An existing ledger keeps the name and
    /// currency it was created with; a file older than migration 3 has its single token moved to `tokens`.
    /// `faults`: what a test injects (none in the daemon); `writesCreationsWithConstants`: `false` only for the
    /// test that compares the two ways of writing a new record.
    /// - Throws: ``LedgerError/damagedDatabase(path:report:)`` for a file that is not a sound ledger;
    ///   ``SQLite/SQLiteError`` otherwise.
    package init(path: String, name: String, currency: Currency, token: String? = nil, verify: Bool = false,
                 outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil,
                 writesCreationsWithConstants: Bool = true) throws {
        self.outcomeRetention = outcomeRetention
        self.faults = faults
        self.writesCreationsWithConstants = writesCreationsWithConstants
        do {
            let connection = try SQLiteConnection(path: path, mode: .create)
            self.connection = connection
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -\(Self.workCacheKiB); PRAGMA wal_autocheckpoint = 8192;")
            if verify, let report = try connection.withPageCache(kibibytes: Self.openCacheKiB, { try connection.check() }) {
                throw LedgerError.damagedDatabase(path: path, report: report)
            }
            let versionBefore = try connection.prepare("PRAGMA user_version").first { $0.int64(0) } ?? 0
            try connection.migrate(Self.migrations, steps: Self.migrationSteps)
            if versionBefore > 0 && versionBefore <= Self.lastRebuildingMigration { try connection.execute("VACUUM") }
            var meta: [String: String] = [:]
            try connection.prepare("SELECT key, value FROM meta").forEach { meta[$0.text(0)] = $0.text(1) }
            if meta.isEmpty {
                meta = ["name": name, "currency": currency.code]
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
            let currencyTotals: [Currency: Int64]
            (seqById, dayTotals, currencyTotals) = try connection.withPageCache(kibibytes: Self.openCacheKiB) {
                try Self.loadRecords(connection)
            }
            for (currency, total) in currencyTotals { totals[dayTotals.number(of: currency)] = total }
            clientLog.position = try Self.lastOutcomePosition(connection)
            dataVersion = try connection.prepare("PRAGMA data_version").first { $0.int64(0) } ?? 0
        } catch let error as SQLiteError where error.isCorruption {
            throw LedgerError.damagedDatabase(path: path, report: error.message)
        }
    }

    package func record(id: UUID) throws -> StoredRecord? {
        guard let seq = seqById[id] else { return nil }
        if let pending = pendingVersions.version(seq: seq) { return pending }
        return try rows.recordBySeq().first([.integer(seq)]) { row in
            lastReadCreation = (seq, try RecordCreation(row: row, at: Int32(RecordColumns.names.count - 1)))
            return try StoredRecord(row: row, id: id)
        }
    }

    package func liveTotal(currency: Currency) throws -> Int64 { totals[dayTotals.number(of: currency)] }

    package func lastMutationId(clientId: UUID) throws -> Int64 {
        if let pending = clientLog.pendingLastMutationIds[clientId] { return pending }
        return try committedClient(clientId).lastMutationId
    }

    /// The client's committed `clients` row (zeros for a client never seen), read through ``SQLiteClientLog/committed``.
    func committedClient(_ clientId: UUID) throws -> SQLiteClientLog.Row {
        if let committed = clientLog.committed[clientId] { return committed }
        let stored = try connection.cached(literal: """
            SELECT last_mutation_id, newest_run, open_first, open_last, open_outcomes FROM clients WHERE id = ?1
            """).first([Self.blob(clientId)]) { row in
            SQLiteClientLog.Row(lastMutationId: row.int64(0), newestRun: row.int64(1), open: try Self.openRun(row, from: 2))
        } ?? SQLiteClientLog.Row()
        clientLog.committed[clientId] = stored
        return stored
    }

    package func setLastMutationId(clientId: UUID, _ mutationId: Int64) throws {
        clientLog.pendingLastMutationIds[clientId] = mutationId
    }

    /// Keeps `record` for the group's multi-row writes before COMMIT (``flushRecords()``); ``record(id:)`` answers
    /// it from memory until then.
    package func write(_ record: StoredRecord, replacing old: StoredRecord?) throws {
        try checkNextSeq(record.seq)
        try faults?.check(.write)
        let expense = record.expense
        pendingVersions.add(record, replacing: old, creation: try carriedCreation(replacing: old))
        undo.append((expense.id, seqById.updateValue(record.seq, forKey: expense.id)))
        if let old, !old.deleted { try account(old.expense, sign: -1) }
        if !record.deleted { try account(expense, sign: 1) }
        head = record.seq
    }

    /// Writes the transaction's record changes: the replaced versions' rows go, then the new rows, in seq order.
    private func flushRecords() throws {
        let pending = pendingVersions
        try rows.recordDeletes.run(count: pending.replacedRows.count) { row, index in
            try row.integer(pending.replacedRows[index])
        }
        // New records in one statement, every other version in another, each in seq order: a row's content is
        // the same either way, and a new record's constant columns cost no bind.
        let split = writesCreationsWithConstants
        for creations in split ? [true, false] : [false] {
            let count = creations ? pending.newRecords : split ? pending.count - pending.newRecords : pending.count
            var next = 0
            // The rows are bound in order (SQLiteRowStatement.run): each is the next seq's version of the kind.
            try (creations ? rows.recordCreations : rows.records).run(count: count) { row, _ in
                while pending.positions[next] < 0
                    || (split && PendingRecordVersions.isCreation(pending.versions[pending.positions[next]]) != creations) {
                    next += 1
                }
                let version = pending.versions[pending.positions[next]]
                if creations { try version.writeCreation(to: &row) } else { try version.write(to: &row) }
                try RecordCreation.write(pending.creations[pending.positions[next]], to: &row)
                next += 1
            }
        }
    }

    private func account(_ expense: Expense, sign: Int64) throws {
        let currency = dayTotals.number(of: expense.currency)
        totals[currency] = try Self.checkedTotal(totals[currency], adding: sign * expense.amount, currency: expense.currency)
        // Each cell sums a subset of the currency's positive amounts, so it cannot overflow once the total did not.
        dayTotals.add(expense, sign: sign)
    }

    /// A pull's rows: every record changed after `?1`, without the tombstones purged by compaction (at or below
    /// the horizon, read from the file in the same statement so another process's compaction counts at once;
    /// `compact(before:)`) at or below `?3`, ``LedgerStore/purgedCut(since:snapshot:)``.
    static let pulledRows = """
        records WHERE seq > ?1 AND (deleted = 0 OR seq > ?3 OR seq > (SELECT coalesce(max(value), 0) FROM history_meta WHERE key = 'horizon'))
        """

    /// The general path of a pull page: each row decoded into a ``Record``. The page itself
    /// (``changes(since:limit:snapshot:maximumBytes:)``) is written straight from the rows and falls back to
    /// this for a row it cannot write as it is; `PullPageEncodingTests` holds the two to the same bytes.
    package func changedRecords(since: Int64, limit: Int, snapshot: Int64?) throws -> [Record] {
        try connection.cached("SELECT \(RecordColumns.list) FROM \(Self.pulledRows) ORDER BY seq LIMIT ?2")
            .map([.integer(since), .integer(Int64(limit)), .integer(Self.purgedCut(since: since, snapshot: snapshot))]) { row in
                try StoredRecord(row: row).record
            }
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T {
        let savedHead = head
        let savedTotals = totals
        dayTotals.commit()
        clientLog.begin()
        clearPendingRows()
        lastReadCreation = nil
        pendingVersions.reset(firstSeq: head + 1)
        undo.removeAll(keepingCapacity: true)
        do {
            let value = try connection.transaction {
                let value = try body()
                try flushRecords()
                try sweepOutcomeRuns(appended: try flushClientLog())
                try flushHistory()
                try faults?.check(.commit)
                return value
            }
            dayTotals.commit()
            clientLog.commit()
            clearPendingRows()
            if let checkpointer { checkpointAfterCommit(checkpointer) }
            return value
        } catch {
            head = savedHead
            totals = savedTotals
            for (id, seq) in undo.reversed() { seqById[id] = seq }
            undo.removeAll(keepingCapacity: true)
            dayTotals.rollBack()
            clientLog.rollBack()
            clearPendingRows()
            throw error
        }
    }

    deinit {
        // Before the ledger's own connection closes: the last connection to close folds the WAL into the file.
        checkpointer?.close()
    }

    /// Copies the database consistently to `path` with SQLite's online backup API.
    package func backup(to path: String) throws { try connection.backup(to: path) }

    // MARK: - Encoding

    static func blob(_ id: UUID) -> SQLiteValue { .blob(UUIDBlob.bytes(id)) }

    /// Binds `id`'s 16 bytes (``ExpenseCore/UUIDBlob``'s layout) without an array.
    static func bind(_ id: UUID, to row: inout SQLiteRowBinder) throws {
        try withUnsafeBytes(of: id.uuid) { try row.blob($0) }
    }

    /// The id of a 16-byte blob, as ``uuid(_:)`` reads it, or `nil`; without an array.
    static func uuid(raw bytes: UnsafeRawBufferPointer) -> UUID? {
        bytes.count == 16 ? UUID(uuid: bytes.loadUnaligned(as: uuid_t.self)) : nil
    }

    static func uuid(_ bytes: [UInt8]) throws -> UUID {
        guard let id = UUIDBlob.uuid(bytes) else { throw LedgerError.storageFailed("a stored id is not 16 bytes") }
        return id
    }
}
