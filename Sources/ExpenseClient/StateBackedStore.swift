import ExpenseCore
import Foundation

/// A store that holds its whole state as one ``StoreState`` value: in memory only, or loaded from one file and
/// written back whole. The reads and the transaction logic are the same for every such store; only where the
/// state is kept differs (``persist(_:)``).
///
/// Several processes may share the file: every read first takes in what another process stored
/// (``reload()``), and ``write(_:)`` re-reads and writes back while holding the store's writer lock
/// (``exclusively(_:)``), so a write never replaces the file with a state that misses another's change.
protocol StateBackedStore: ExpenseStore {
    /// Everything the store holds, as last loaded (reads go through ``current()``).
    var state: StoreState { get set }

    /// Makes `newState` durable before it replaces ``state`` (nothing to do for a store in memory).
    /// - Throws: when it could not be stored; ``state`` is then left as it was.
    func persist(_ newState: StoreState) throws

    /// Replaces ``state`` with what the file holds now when another process changed it since it was loaded
    /// (nothing to do for a store in memory).
    /// - Throws: ``StoreError`` when the file cannot be read.
    func reload() throws

    /// Runs `body` holding the writer lock every process shares (a store in memory has no other writer).
    func exclusively<T>(_ body: () throws -> T) throws -> T
}

extension StateBackedStore {
    /// The state, brought up to date with the file first.
    func current() throws -> StoreState {
        try reload()
        return state
    }

    package func record(id: UUID) throws -> LocalRecord? { try current().rows[id]?.record }

    package func records(idPrefix: String, limit: Int) throws -> [LocalRecord] { try current().live(idPrefix: idPrefix, limit: limit) }

    package func expenses(matching filter: ExpenseFilter) throws -> [Expense] { try current().expenses(matching: filter) }

    /// From the state's totals (``StoreState/totals``), not a walk of the rows.
    package func liveCount() throws -> Int { Int(try current().totals.values.reduce(0) { $0 + $1.count }) }

    /// From the state's totals (``StoreState/totals``), kept as rows change and built once when a file is loaded.
    package func liveTotal(currency: Currency) throws -> Int64? {
        guard let total = try current().totals[currency] else { return 0 }
        return total.sum
    }

    package func pendingMutations(limit: Int) throws -> [PendingMutation] { Array(try current().pending.prefix(limit)) }

    package func pendingCount() throws -> Int { try current().pending.count }

    package func rejectedMutations() throws -> [PendingMutation] { try current().pending.filter { $0.state == .rejected } }

    package func forEachExpense(matching filter: ExpenseFilter, _ body: (Expense) throws -> Void) throws {
        for expense in try current().expenses(matching: filter) { try body(expense) }
    }

    package func buckets(matching filter: ExpenseFilter) throws -> [ExpenseBucket] {
        // By date only: a part may be in the filter's category when its expense is not (summing picks the category).
        let dates = ExpenseFilter(from: filter.from, to: filter.to)
        return try ExpenseBucket.summing(try current().rows.values.lazy.filter { !$0.record.deleted }.map(\.record.expense)
            .filter { dates.matches($0) }, category: filter.category)
    }

    package func hasUnsent(kinds: Set<RecordKind>) throws -> Bool {
        try current().pending.contains { $0.state == .unsent && ($0.kind == .expense || kinds.contains($0.kind)) }
    }

    package func conflicts() throws -> [Conflict] { try current().conflicts }

    package func metaValue(_ key: StoreMetaKey) throws -> String? { try current().meta[key] }

    /// Under the writer lock, re-reads the state and runs `body` on a copy of it; a change is persisted, then
    /// kept. A thrown error keeps nothing.
    package func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try exclusively {
            try reload()
            let transaction = StateTransaction(state)
            let result = try body(transaction)
            if transaction.state != state {
                try persist(transaction.state)
                state = transaction.state
            }
            return result
        }
    }
}
