import ExpenseCore
import ExpenseProtocol
import Foundation

/// Where the client keeps its expenses: the local view (server copy with pending changes applied), the
/// server's last-seen copy of each record, the pending queue, open conflicts and its settings.
///
/// The code that validates, queues and syncs (``LocalLedger``) only sees this protocol, so the three
/// implementations (in memory, a JSON file, SQLite) are interchangeable; one contract test suite runs against
/// all three.
///
/// - Important: A store is used by one owner at a time (one command, or the sync engine); it is not `Sendable`.
package protocol ExpenseStore: AnyObject {
    /// The file (or `:memory:`) behind the store, for messages.
    var location: String { get }

    /// The record with this id, deleted or not.
    func record(id: UUID) throws -> LocalRecord?

    /// Up to `limit` live (not deleted) records whose lower-case id starts with `idPrefix`.
    func records(idPrefix: String, limit: Int) throws -> [LocalRecord]

    /// The live expenses passing `filter`, by date, then in the order they were first stored.
    func expenses(matching filter: ExpenseFilter) throws -> [Expense]

    /// Calls `body` with each live expense passing `filter`, in the order of ``expenses(matching:)``, without
    /// holding them all in memory (where the store can avoid it); stops early when `body` throws.
    func forEachExpense(matching filter: ExpenseFilter, _ body: (Expense) throws -> Void) throws

    /// The live expenses passing `filter`, summed per day, category and currency, in no particular order.
    /// - Throws: `ValidationError.amountOverflow` when a bucket's sum does not fit, ``StoreError``.
    func buckets(matching filter: ExpenseFilter) throws -> [ExpenseBucket]

    /// How many live expenses there are (kept with the totals, like ``liveTotal(currency:)``).
    func liveCount() throws -> Int

    /// The exact sum of the live amounts in `currency`, or `nil` when it does not fit in `Int64` (for the
    /// local overflow rule, `LocalLedger+Limits.swift`). Every store keeps these sums as its rows change
    /// (``LiveTotal``), so this reads one value rather than summing the expenses.
    func liveTotal(currency: Currency) throws -> Int64?

    /// The first `limit` queue entries, in queue order.
    func pendingMutations(limit: Int) throws -> [PendingMutation]

    /// How many entries the queue holds.
    func pendingCount() throws -> Int

    /// The queue entries the daemon rejected, in queue order (few: each waits for the person).
    func rejectedMutations() throws -> [PendingMutation]

    /// Whether some queue entry of an expense or of one of `kinds` waits to be sent (state
    /// ``PendingMutation/State/unsent``). A plain read.
    func hasUnsent(kinds: Set<RecordKind>) throws -> Bool

    /// Every open conflict, oldest first.
    func conflicts() throws -> [Conflict]

    /// A setting, or `nil`.
    func metaValue(_ key: StoreMetaKey) throws -> String?

    /// Runs `body` in one transaction: either every write it makes is stored (durably) or none is.
    /// - Throws: what `body` throws (nothing written), or ``StoreError``.
    func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T

    /// Before pulling into a store that may be empty: a store that can load faster in bulk (dropping its
    /// indexes) starts doing so when it holds nothing at all, or continues an interrupted bulk load.
    /// While it lasts only ``StoreTransaction/putSettled(_:)`` and meta writes are allowed.
    /// - Returns: whether a bulk load is on; ``endBulkLoad()`` must follow once the pull is complete.
    func beginBulkLoad() throws -> Bool
    /// Ends a bulk load: the store is indexed (and queryable) again.
    func endBulkLoad() throws
}

/// The reads and writes available inside ``ExpenseStore/write(_:)``.
package protocol StoreTransaction: AnyObject {
    /// The budget, rule and setting tables; `nil` for a store that keeps expenses only (the JSON cache).
    var dataTables: (any DataKindTables)? { get }

    func record(id: UUID) throws -> LocalRecord?
    /// Inserts or replaces the local state of an expense.
    func putRecord(_ record: LocalRecord) throws
    /// Gives the record `old` the id `new`, keeping its place in the listing. Only for a record the daemon has never
    /// seen (no server copy, no conflict) and an id the store does not hold; its queue entries are re-keyed apart.
    func renameRecord(_ old: UUID, to new: UUID) throws
    /// Removes the record `id` without a trace. Only for a record the daemon has never seen (no server copy, no
    /// conflict) whose queue entries are already removed: to this cache it never existed.
    func removeRecord(_ id: UUID) throws

    /// The server's last-seen copy of an expense.
    func serverCopy(id: UUID) throws -> Record?
    func putServerCopy(_ record: Record) throws
    /// Every server copy with `seq` above `seq` (the records a replaced daemon history may have lost; a heal).
    func serverCopies(seqAbove seq: Int64) throws -> [Record]

    /// Whether the queue and the open conflicts are both empty: then the local view of every expense is
    /// its server copy, and a pulled record can be stored with ``putSettled(_:)`` without a merge.
    func isSettled() throws -> Bool
    /// Stores a pulled record as the server copy and, unchanged, as the local view, unless the stored copy
    /// has a higher version. Only for a settled store (``isSettled()``): it is what ``LocalLedger``'s
    /// `refresh` would compute when an expense has no queue entry and no conflict.
    func putSettled(_ record: Record) throws
    /// ``putSettled(_:)`` for each record of a pulled page, in order.
    func putSettled(_ records: [Record]) throws

    /// The queue entries of one expense, in queue order.
    func pending(for id: UUID) throws -> [PendingMutation]
    /// The first `limit` queue entries after `position`, in queue order.
    func pending(after position: Int64, limit: Int) throws -> [PendingMutation]
    /// Appends an entry; returns it with its position.
    @discardableResult
    func appendPending(_ mutation: PendingMutation) throws -> PendingMutation
    /// Replaces the entry at `mutation.position`.
    func updatePending(_ mutation: PendingMutation) throws
    func removePending(position: Int64) throws

    func conflict(id: UUID) throws -> Conflict?
    func putConflict(_ conflict: Conflict) throws
    func removeConflict(id: UUID) throws

    func metaValue(_ key: StoreMetaKey) throws -> String?
    /// Sets (or, with `nil`, removes) one setting.
    func setMetaValue(_ value: String?, for key: StoreMetaKey) throws
}

extension StoreTransaction {
    /// One record after the other.
    package func putSettled(_ records: [Record]) throws {
        for record in records { try putSettled(record) }
    }

    /// The first `limit` queue entries, in queue order.
    package func pending(limit: Int) throws -> [PendingMutation] { try pending(after: 0, limit: limit) }
}

extension ExpenseStore {
    /// Stores without a bulk mode load record by record.
    package func beginBulkLoad() throws -> Bool { false }
    package func endBulkLoad() throws {}

    /// Sets (or, with `nil`, removes) one setting.
    package func setMetaValue(_ value: String?, for key: StoreMetaKey) throws {
        try write { try $0.setMetaValue(value, for: key) }
    }

    /// The client's UUID.
    package func clientId() throws -> UUID? {
        try metaValue(.clientId).flatMap { UUIDText.parse($0) }
    }
}
