import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// A ``LedgerStore`` over PostgreSQL: every ledger of a database in the same tables (a `ledger` column in each
/// key), so any number of daemons can serve the same ledgers at once.
///
/// How several daemons stay exactly one ledger: each write transaction first locks the ledger's row
/// (`SELECT head, generation … FOR UPDATE`), so one ledger's transactions run one after another whatever
/// daemon sends them, and `seq` numbers follow `head` without a gap (a SEQUENCE would leave gaps on rollback).
/// Nothing a transaction decides comes from a cache it has not validated under that lock: records, last
/// consumed mutationIds and outcomes are read from the database inside the transaction; the per-currency
/// totals cache is reloaded when the row's `generation` is not the one this store last committed.
///
/// - Important: One serial owner (the ``Ledger`` actor's thread), one connection at a time: its own (tools and
///   tests), or one leased from the daemon's ``PostgresConnectionPool`` at the first statement and given back when
///   the ledger's thread runs out of work (``becameIdle()``), never inside a transaction. Acknowledged means
///   committed: ``transaction(_:)`` returns only after `COMMIT` returned. When the connection is lost
///   (PostgreSQL restarting, a failover) the transaction fails with ``LedgerError/storageUnavailable(_:)``
///   and nothing of it is acknowledged; the next transaction reconnects, at most once per backoff step.
package final class PostgresLedgerStore: LedgerStore {
    /// Where the connection comes from.
    let source: Source
    /// The pool's connection this store holds now; `nil` between leases (and always with a connection of its own).
    var leased: PostgresConnection?
    package let name: String
    /// The ledger's number (`ledgers.number`, migration 6): the first column of the key of every row it owns, an
    /// integer so that PostgreSQL compares keys without a text comparison.
    package let number: Int64
    package let currency: Currency
    package let identity: LedgerIdentity
    package internal(set) var head: Int64
    package let outcomeRetention: Int64
    /// What a test injects (``StoreFaults``); `nil` in the daemon.
    let faults: StoreFaults?
    /// Whether a commit that advanced the head is announced to the other daemons (``PostgresChangeListener``):
    /// `NOTIFY` after the commit, in a statement (and transaction) of its own sent in the commit's round trip
    /// (``PostgreSQL/PostgresConnection/pipeline(_:thenUnchecked:)``), once per group commit. Not inside the
    /// transaction: there it takes PostgreSQL's cluster-wide notify lock at every commit (measured: half the
    /// push throughput). A notification lost with a connection only delays a watcher (listeners re-check).
    package var announcesChanges = false
    /// The channel of those notifications; the payload is the ledger's name.
    package static let changeChannel = "expense_changes"

    /// The `generation` of the ledger row as this store last committed or read it under the lock; `nil`
    /// when unknown (after a failure), which makes the next transaction reload the totals.
    var generation: Int64?
    private var totals: [Currency: Int64] = [:]
    /// The records the transaction writes, by id, each once with what its write needs (``PendingRecordWrite``).
    var pendingRecords: [UUID: PendingRecordWrite] = [:]
    var pendingDeltas: [TotalsKey: TotalsDelta] = [:]
    var pendingLastMutationIds: [UUID: Int64] = [:]
    /// The outcomes the transaction keeps, one run per client, and the committed runs it read
    /// (``PostgresLedgerStore+Outcomes.swift``).
    var transactionRuns = TransactionOutcomeRuns()
    /// The history entries of the transaction, written in one statement before `COMMIT`.
    var pendingHistory: [PendingHistoryRow] = []
    /// The ledger row's `tokens_generation` as last read (``tokensMayHaveChanged()``); `nil` before the first read.
    var tokensGeneration: Int64?
    private(set) var inTransaction = false
    /// What the transaction read ahead (``prefetch(clientIds:ids:)``); empty outside a transaction.
    var readAhead = PostgresReadAhead()
    var reconnect = ReconnectBackoff()

    /// Opens the ledger `name` of the database behind `connection` (whose schema is migrated already:
    /// ``prepareSchema(_:)``).
    /// - Throws: ``LedgerError/unknownLedger(_:)``, or a storage error.
    package convenience init(connection: PostgresConnection, name: String,
                             outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil) throws {
        try self.init(source: .own(connection), name: name, outcomeRetention: outcomeRetention, faults: faults)
    }

    /// Opens the ledger `name` on connections leased from `pool` (the daemon's): one is held only while the
    /// ledger has work (``becameIdle()``).
    package convenience init(pool: PostgresConnectionPool, name: String,
                             outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil) throws {
        try self.init(source: .pool(pool), name: name, outcomeRetention: outcomeRetention, faults: faults)
    }

    private init(source: Source, name: String, outcomeRetention: Int64, faults: StoreFaults?) throws {
        self.source = source
        self.name = name
        self.outcomeRetention = outcomeRetention
        self.faults = faults
        let connection: PostgresConnection
        switch source {
        case .own(let own): connection = own
        case .pool(let pool): connection = try Self.storage { try pool.lease() }
        }
        // A leased connection goes back as soon as the row is read, whether or not the store opens: a failed
        // initializer runs no deinit, and a connection kept by one would be gone from the pool for good.
        defer { if case .pool(let pool) = source { pool.giveBack(connection) } }
        let row = try Self.storage {
            try connection.query("""
                SELECT currency, ledger_id, epoch, epoch_cursor, head, number FROM ledgers WHERE name = $1
                """, [.text(name)]).first
        }
        guard let row else { throw LedgerError.unknownLedger(name) }
        guard let currency = Currency(code: row.text(0)), let ledgerId = UUIDText.parse(row.text(1)),
              let epoch = UUIDText.parse(row.text(2)) else {
            throw LedgerError.storageFailed("the ledgers row of '\(name)' has no valid currency or identity")
        }
        self.currency = currency
        self.identity = LedgerIdentity(ledgerId: ledgerId, epoch: epoch, epochCursor: row.int64(3))
        self.head = row.int64(4)
        self.number = row.int64(5)
    }

    /// Creates or brings forward the shared schema.
    package static func prepareSchema(_ connection: PostgresConnection) throws {
        try storage { try connection.migrate(migrations) }
    }

    /// Adds the ledger `name` (a new ledger id and first epoch) and, when `token` is given, its first token:
    /// the owner token `default`, kept as its SHA-256 only.
    /// - Throws: ``LedgerError/ledgerExists(_:)``, ``LedgerError/invalidLedgerName(_:)``, or a storage error.
    package static func create(connection: PostgresConnection, name: String, currency: Currency, token: String?,
                               identity: LedgerIdentity? = nil) throws {
        guard LedgerDirectory.isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        let identity = identity ?? LedgerIdentity(ledgerId: UUID(), epoch: UUID(), epochCursor: 0)
        let inserted = try storage {
            try connection.transaction { () throws -> Int in
                let inserted = try connection.query("""
                    INSERT INTO ledgers (name, currency, ledger_id, epoch, epoch_cursor, history_start_time)
                    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING
                    """, [.text(name), .text(currency.code), .text(UUIDText.lowercased(identity.ledgerId)),
                          .text(UUIDText.lowercased(identity.epoch)), .integer(identity.epochCursor),
                          .integer(HistoryAuthor.now())]).affectedRows
                if inserted == 1, let token {
                    try insertToken(StoredToken(name: SQLiteLedgerStore.firstTokenName, role: .owner, digest: Token.digest(token),
                                                created: HistoryAuthor.now()), ledger: name, connection: connection)
                }
                return inserted
            }
        }
        guard inserted == 1 else { throw LedgerError.ledgerExists(name) }
    }

    /// Every ledger of the database: name and currency, sorted by name.
    package static func ledgers(_ connection: PostgresConnection) throws -> [(name: String, currency: Currency)] {
        try storage {
            try connection.query("SELECT name, currency FROM ledgers ORDER BY name").all.compactMap { row in
                Currency(code: row.text(1)).map { (row.text(0), $0) }
            }
        }
    }

    package func refresh() throws {
        guard !inTransaction else { return }
        try ensureConnected()
        let stored = try Self.storage {
            try connection.query("SELECT head FROM ledgers WHERE name = $1", [.text(name)]).first?.int64(0)
        }
        guard let stored else { throw LedgerError.unknownLedger(name) }
        head = stored
    }

    package func record(id: UUID) throws -> StoredRecord? {
        if let pending = pendingRecords[id] { return pending.stored }
        if readAhead.ids.contains(id) { return readAhead.records[id] }
        return try Self.storage {
            try connection.query("""
                SELECT \(RecordColumns.list)
                FROM records WHERE ledger = $1 AND id = $2
                """, [.integer(number), .text(UUIDText.lowercased(id))]).first.map { try StoredRecord(row: $0) }
        }
    }

    package func liveTotal(currency: Currency) throws -> Int64 { totals[currency] ?? 0 }

    package func lastMutationId(clientId: UUID) throws -> Int64 {
        if let pending = pendingLastMutationIds[clientId] { return pending }
        if let read = readAhead.lastMutationIds[clientId] { return read }
        if !inTransaction { try ensureConnected() }
        return try Self.storage {
            try connection.query("SELECT last_mutation_id FROM clients WHERE ledger = $1 AND id = $2",
                                 [.integer(number), .text(UUIDText.lowercased(clientId))]).first?.int64(0) ?? 0
        }
    }

    package func setLastMutationId(clientId: UUID, _ mutationId: Int64) throws {
        pendingLastMutationIds[clientId] = mutationId
    }

    package func write(_ record: StoredRecord, replacing old: StoredRecord?) throws {
        try checkNextSeq(record.seq)
        precondition(inTransaction, "every write happens inside transaction(_:)")
        try faults?.check(.write)
        // One lookup: a record written twice keeps whether its first write was a create.
        pendingRecords[record.expense.id, default: PendingRecordWrite(stored: record, isNew: old == nil)].stored = record
        if let old, !old.deleted { try account(old.expense, sign: -1) }
        if !record.deleted { try account(record.expense, sign: 1) }
        head = record.seq
    }

    private func account(_ expense: Expense, sign: Int64) throws {
        totals[expense.currency] = try Self.checkedTotal(totals[expense.currency] ?? 0, adding: sign * expense.amount, currency: expense.currency)
        // Each part in its own category's row, the remainder in the expense's (an expense without parts: one key).
        expense.forEachCategoryShare { category, amount, count in
            let key = TotalsKey(day: expense.date, category: category, currency: expense.currency)
            pendingDeltas[key, default: .init()].amount += sign * amount
            pendingDeltas[key, default: .init()].count += sign * count
        }
    }

    /// Written record by record: a page's bytes cost little beside its round trip.
    package func changes(since: Int64, limit: Int, snapshot: Int64?, maximumBytes: Int) throws -> EncodedChanges {
        EncodedChanges(try changedRecords(since: since, limit: limit, snapshot: snapshot))
    }

    private func changedRecords(since: Int64, limit: Int, snapshot: Int64?) throws -> [Record] {
        // Tombstones purged by compaction (at or below the horizon) that the reader cannot hold live are left out
        // (LedgerStore.purgedCut); their rows stay.
        // Never past `head` as this store read it: a change committed by another daemon since is in the next pull.
        try Self.storage {
            try connection.query("""
                SELECT \(RecordColumns.list)
                FROM records WHERE ledger = $1 AND seq > $2 AND seq <= $3
                    AND (NOT deleted OR seq > $6 OR seq > (SELECT horizon FROM ledgers WHERE name = $5))
                ORDER BY seq LIMIT $4
                """, [.integer(number), .integer(since), .integer(head), .integer(Int64(limit)), .text(name),
                      .integer(Self.purgedCut(since: since, snapshot: snapshot))]).all.map { try StoredRecord(row: $0).record }
        }
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(readingAhead: nil, body)
    }

    /// The group commit's transaction: the read-ahead goes with `BEGIN` and the row lock, so a push takes two
    /// round trips (lock + reads, writes + `COMMIT`) whatever its size.
    package func transaction<T>(prefetching clientIds: [UUID], ids: [UUID], _ body: () throws -> T) throws -> T {
        try transaction(readingAhead: (clientIds, ids), body)
    }

    private func transaction<T>(readingAhead: (clientIds: [UUID], ids: [UUID])?, _ body: () throws -> T) throws -> T {
        precondition(!inTransaction, "transactions do not nest")
        let savedTotals = totals
        let savedHead = head
        inTransaction = true
        defer {
            inTransaction = false
            pendingRecords.removeAll(keepingCapacity: true)
            pendingDeltas.removeAll(keepingCapacity: true)
            pendingLastMutationIds.removeAll(keepingCapacity: true)
            transactionRuns.removeAll()
            pendingHistory.removeAll(keepingCapacity: true)
            readAhead.removeAll()
        }
        do {
            try ensureConnected()
            let headBefore = try Self.storage { () throws -> Int64 in
                try lockLedgerRow(readingAhead: readingAhead)
                return head
            }
            let value = try body()
            // Every write, the head and COMMIT in one round trip; the server skips the rest after a failure.
            let advance = PostgresStatement("""
                UPDATE ledgers SET head = $2, generation = generation + 1 WHERE name = $1 RETURNING generation
                """, [.text(name), .integer(head)])
            try faults?.check(.commit)
            // The announcement rides in the same round trip, after COMMIT, in a transaction of its own.
            let announce = head != headBefore && announcesChanges
                ? [PostgresStatement("SELECT pg_notify($1, $2)", [.text(Self.changeChannel), .text(name)])] : []
            let writes = try pendingWrites()
            let results = try Self.storage {
                try connection.pipeline(writes + [advance, PostgresStatement("COMMIT")], thenUnchecked: announce)
            }
            generation = results[results.count - 2].first?.int64(0)
            return value
        } catch {
            heldConnection?.rollbackIfOpen()
            // What the database holds now is unknown here (a lost COMMIT may have committed): the next
            // transaction reads head and totals again under the lock.
            generation = nil
            totals = savedTotals
            head = savedHead
            throw Self.storageError(error)
        }
    }

    /// Begins the transaction, locks the ledger's row for it and validates the caches against it, in one round
    /// trip with the read-ahead when there is one (``prefetch(clientIds:ids:)``, read under the lock).
    ///
    /// The totals are read in the same pipeline, right after the lock, but only when the row's `generation`
    /// is not the one this store last committed (the statement compares them itself): another daemon's
    /// commit, or the first transaction, costs no extra round trip, and an unchanged ledger reads nothing.
    private func lockLedgerRow(readingAhead: (clientIds: [UUID], ids: [UUID])?) throws {
        let wanted = readingAhead.map { readAheadWanted(clientIds: $0.clientIds, ids: $0.ids) }
        let results = try connection.pipeline([
            PostgresStatement("BEGIN"),
            PostgresStatement("SELECT head, generation FROM ledgers WHERE name = $1 FOR UPDATE", [.text(name)]),
            PostgresStatement("""
                SELECT currency, sum(amount)::bigint FROM monthly_totals
                WHERE ledger = $1 AND (SELECT generation FROM ledgers WHERE name = $3) IS DISTINCT FROM $2::bigint
                GROUP BY currency
                """, [.integer(number), generation.map { .integer($0) } ?? .null, .text(name)]),
        ] + (wanted.map(readAheadStatements) ?? []))
        guard let row = results[1].first else {
            throw LedgerError.unknownLedger(name)
        }
        head = row.int64(0)
        let stored = row.int64(1)
        if stored != generation {
            var loaded: [Currency: Int64] = [:]
            for row in results[2].all {
                guard let currency = Currency(code: row.text(0)) else { continue }
                loaded[currency] = row.int64(1)
            }
            totals = loaded
            generation = stored
        }
        if let wanted { try takeReadAhead(results.dropFirst(3), wanted) }
    }

    deinit {
        if case .pool(let pool) = source, let held = leased { pool.giveBack(held) }
    }
}
