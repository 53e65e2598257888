import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// For each field of a record, the record version at which that field last changed.
///
/// This is what lets an edit made against an older version still apply when it touches only fields nobody
/// else changed since (disjoint edits merge) instead of being reported as a conflict.
///
/// One version per conflict group (``ExpenseCore/ExpenseField/conflictGroups``): `amount` and `currency` are one
/// field here, **money** (Protocol.md §7.4): the same digits are different money in another currency, so they
/// share one version and a change of either is a change of both.
package struct FieldVersions: Hashable, Sendable {
    /// Each conflict group's version, in ``ExpenseCore/ExpenseField/conflictGroups``' order.
    package var groups: ExpenseField.PerConflictGroup<Int64>

    /// Every field at `version` (a creation).
    package init(all version: Int64) {
        groups = .init(repeating: version)
    }

    /// The versions in ``ExpenseCore/ExpenseField/conflictGroups``' order, as a row holds them.
    package init(groups: ExpenseField.PerConflictGroup<Int64>) {
        self.groups = groups
    }

    /// The version at which `field` last changed (`id` never changes: 1; `amount` and `currency` are money).
    package subscript(field: ExpenseField) -> Int64 {
        get { field.conflictGroupIndex.map { groups[$0] } ?? 1 }
        set {
            guard let index = field.conflictGroupIndex else { return }
            groups[index] = newValue
        }
    }

    package static func == (a: FieldVersions, b: FieldVersions) -> Bool {
        a.groups.indices.allSatisfy { a.groups[$0] == b.groups[$0] }
    }

    package func hash(into hasher: inout Hasher) {
        for index in groups.indices { hasher.combine(groups[index]) }
    }
}

/// A record as a store keeps it: the wire ``Record`` plus the per-field versions the conflict rules need.
package struct StoredRecord: Hashable, Sendable {
    package var record: Record
    package var fieldVersions: FieldVersions

    package init(record: Record, fieldVersions: FieldVersions) {
        self.record = record
        self.fieldVersions = fieldVersions
    }

    package var expense: Expense { record.expense }
    package var version: Int64 { record.version }
    package var seq: Int64 { record.seq }
    package var deleted: Bool { record.deleted }
}

/// The storage a ledger's rules work against. Synchronous and owned by one serial owner (the ``Ledger`` actor
/// or a test): implementations are not `Sendable`.
///
/// Two implementations pass one contract suite: ``InMemoryLedgerStore`` (the rules' tests) and
/// ``SQLiteLedgerStore`` (the daemon).
///
/// - Important: Every write happens inside ``transaction(_:)``. A store keeps its live totals per currency and
///   its aggregates in step with the records **in the same transaction**: ``write(_:replacing:)`` is the only way
///   a record changes, and it updates both. When the body or the commit throws, nothing of the transaction
///   stays, in the file or in any cache.
package protocol LedgerStore: LedgerHistoryStore, LedgerDataStore {
    /// The highest `seq` given so far; 0 for an empty ledger.
    var head: Int64 { get }
    /// The record with this id, tombstones included.
    func record(id: UUID) throws -> StoredRecord?
    /// The sum of the amounts of every live record in `currency` (0 when there is none).
    func liveTotal(currency: Currency) throws -> Int64
    /// The highest mutationId consumed for this client; 0 for a client never seen.
    func lastMutationId(clientId: UUID) throws -> Int64
    /// Records `mutationId` as the client's last consumed one.
    func setLastMutationId(clientId: UUID, _ mutationId: Int64) throws
    /// How many of each client's latest consumed mutations keep their outcome (Protocol.md §7.6): the outcome
    /// of mutation `m` is kept while `m > lastMutationId - outcomeRetention`.
    var outcomeRetention: Int64 { get }
    /// Keeps what was decided for the client's newly consumed `mutationId`, in the same transaction as its
    /// effect, and forgets (at the latest when the transaction commits) the outcomes of that client's mutations
    /// that fall out of the window.
    func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws
    /// The kept outcome of the client's `mutationId`; `nil` when it is outside the window (or was consumed
    /// before outcomes were kept).
    func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome?
    /// Stores `record` (new or replacing `old`, the value previously read for the same id), moving its
    /// contribution to the live totals and aggregates from `old` to `record`. `record.seq` must be `head + 1`.
    func write(_ record: StoredRecord, replacing old: StoredRecord?) throws
    /// Up to `limit` records with `seq` > `since`, in `seq` order, without the tombstones purged by compaction
    /// (at or below ``LedgerHistoryStore/purgeHorizon()``, read in the same statement as the rows) that the reader
    /// cannot hold live (``purgedCut(since:snapshot:)``): from 0, every purged one (a client that starts from
    /// nothing has no copy of their ids to drop); on a later page of a pull from 0, those at or below its
    /// `snapshot`, the head when it began (they were tombstones before it began, so it never saw them live).
    /// From a client's own cursor (no snapshot), with them: it may hold a live copy of an id deleted after its
    /// cursor, and a purged tombstone keeps its row.
    ///
    /// - Important: a cursor above 0 may lie below the horizon without any client being late: the second page of
    ///   a pull from 0 asks from the first page's last seq, below the horizon whenever more live records lie
    ///   there than a page holds. Answering it `cursor_expired` made such a ledger impossible to pull (every
    ///   retry from 0 met the same page); the snapshot is what tells the two readers apart (Protocol.md §5.9).
    ///
    /// The records come written as JSON, as the wire carries them: each object exactly what ``Record/write(to:)``
    /// writes for the record (a store may write them straight from its rows, as the SQLite store does for a first
    /// sync; the others write their records). A store may stop early once it holds two objects or more whose
    /// bytes, with a comma between each two, pass `maximumBytes`: a response line of `maximumBytes` is cut at or
    /// before the last of them (``EncodedPullPage/responseLine(id:maximumLineLength:)``), so what the rows after
    /// it would add is never sent.
    func changes(since: Int64, limit: Int, snapshot: Int64?, maximumBytes: Int) throws -> EncodedChanges
    /// The summary of every live record the query covers.
    func summary(_ query: SummaryQuery) throws -> Summary
    /// Calls `body` with the per-day aggregate of the live records dated `from` … `to`, in any order
    /// (`stats`, Protocol.md §5.10). A default reads every record; the SQLite store answers from its totals in
    /// memory (``LiveDayTotals``), the PostgreSQL store from its `daily_totals`.
    func forEachDayTotal(from: CalendarDay, to: CalendarDay, _ body: (DayTotal) throws -> Void) throws
    /// The live expenses and other records `selection` names, and the head, read as one state of the ledger
    /// (`balances`, Protocol.md §5.11; a converted `summary`, §5.4): the SQLite store in a statement per part on its
    /// one connection, the PostgreSQL store in one `REPEATABLE READ` transaction (another daemon's commit is wholly
    /// in it or wholly out), never a page at a time. Brings the head up to what is committed first, as
    /// ``refresh()`` does.
    func records(_ selection: RecordSelection) throws -> SelectedRecords
    /// Runs `body` as one atomic, durable transaction.
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// Brings ``head`` up to what is committed, before a read outside a transaction (`hello`, `pull`,
    /// `summary`): a store that other processes write too (``PostgresLedgerStore``) reads it again; a store
    /// with one writer has nothing to do.
    func refresh() throws
    /// The ledger's thread has no more work queued: a store that leases a shared resource while in use (a
    /// connection of ``PostgresConnectionPool``) gives it back. Never called inside a transaction.
    func becameIdle()
    /// Whether ``becameIdle()`` does anything (the ledger's thread calls it only then).
    var leasesWhileBusy: Bool { get }
    /// The first failure of the store's own background work since the last call, once, for the ledger to log
    /// (`nil`: none). Nothing committed is lost by one: the SQLite store's WAL checkpoint, which the next one tries
    /// again. The other stores have no background work.
    func takeBackgroundFailure() -> String?
    /// Reads ahead, inside ``transaction(_:)`` and before the pushes are decided, what deciding them asks for
    /// one value at a time: these clients' last consumed mutationIds and the records (expenses and data
    /// records) with these ids. A hint only: every read after it answers exactly what it would have answered
    /// without it. A store across a network (``PostgresLedgerStore``) asks once instead of once per mutation;
    /// a store that reads locally does nothing.
    func prefetch(clientIds: [UUID], ids: [UUID]) throws
    /// ``transaction(_:)`` whose body starts with ``prefetch(clientIds:ids:)`` (the group commit's): the
    /// default does exactly that; a store across a network (``PostgresLedgerStore``) sends the read-ahead with
    /// the transaction's lock, in one round trip.
    func transaction<T>(prefetching clientIds: [UUID], ids: [UUID], _ body: () throws -> T) throws -> T
}

extension LedgerStore {
    package func refresh() throws {}
    package func becameIdle() {}
    package var leasesWhileBusy: Bool { false }
    package func takeBackgroundFailure() -> String? { nil }
    package func prefetch(clientIds: [UUID], ids: [UUID]) throws {}
    package func transaction<T>(prefetching clientIds: [UUID], ids: [UUID], _ body: () throws -> T) throws -> T {
        try transaction {
            try prefetch(clientIds: clientIds, ids: ids)
            return try body()
        }
    }
}

extension LedgerStore {
    /// ``changes(since:limit:snapshot:maximumBytes:)`` of a client's own pull (no snapshot), with no byte bound.
    package func changes(since: Int64, limit: Int) throws -> EncodedChanges {
        try changes(since: since, limit: limit, snapshot: nil, maximumBytes: .max)
    }

    /// The seq at or below which a purged tombstone is left out of a pull (``changes(since:limit:snapshot:maximumBytes:)``):
    /// every one from 0, those at or below the snapshot on a later page of a pull from 0, none from a client's
    /// own cursor. A tombstone is left out when it is at or below both this and the purge horizon.
    package static func purgedCut(since: Int64, snapshot: Int64?) -> Int64 {
        since == 0 ? Int64.max : (snapshot ?? -1)
    }
}

extension LedgerStore {
    /// Refuses a write whose seq is not the next one. The rules always write `head + 1`; a store whose head no
    /// longer matches its file (another process changed it) fails this write, and so its transaction, instead
    /// of writing a record under a seq that is taken or skipped.
    /// - Throws: ``LedgerError/storageFailed(_:)``.
    func checkNextSeq(_ seq: Int64) throws {
        guard seq == head + 1 else {
            throw LedgerError.storageFailed("a write at seq \(seq) does not follow the head, \(head): the ledger changed behind its store")
        }
    }

    /// The live total of a currency after adding `amount` to `total`. The rules refuse a change that would overflow
    /// a currency's total before they write (Protocol.md §7.5), so this fails only for totals the file was given
    /// behind the daemon's back: that transaction fails, the process does not.
    /// - Throws: ``LedgerError/storageFailed(_:)``.
    static func checkedTotal(_ total: Int64, adding amount: Int64, currency: Currency) throws -> Int64 {
        let sum = total.addingReportingOverflow(amount)
        guard !sum.overflow else { throw LedgerError.storageFailed("the live total of \(currency.code) would overflow") }
        return sum.partialValue
    }
}
