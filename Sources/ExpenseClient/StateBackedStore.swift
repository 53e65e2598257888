import ExpenseCore
import Foundation

/// A store that holds its whole state as one ``StoreState`` value: in memory only, or loaded from one file and
/// written back whole. The reads and the transaction logic are the same for every such store; only where the
/// state is kept differs (``persist(_:)``).
protocol StateBackedStore: ExpenseStore {
    /// Everything the store holds.
    var state: StoreState { get set }

    /// Makes `newState` durable before it replaces ``state`` (nothing to do for a store in memory).
    /// - Throws: when it could not be stored; ``state`` is then left as it was.
    func persist(_ newState: StoreState) throws
}

extension StateBackedStore {
    package func record(id: UUID) throws -> LocalRecord? { state.rows[id]?.record }

    package func records(idPrefix: String, limit: Int) throws -> [LocalRecord] { state.live(idPrefix: idPrefix, limit: limit) }

    package func expenses(matching filter: ExpenseFilter) throws -> [Expense] { state.expenses(matching: filter) }

    package func liveCount() throws -> Int { state.rows.values.count { !$0.record.deleted } }

    package func pendingMutations(limit: Int) throws -> [PendingMutation] { Array(state.pending.prefix(limit)) }

    package func pendingCount() throws -> Int { state.pending.count }

    package func forEachExpense(matching filter: ExpenseFilter, _ body: (Expense) throws -> Void) throws {
        for expense in state.expenses(matching: filter) { try body(expense) }
    }

    package func buckets(matching filter: ExpenseFilter) throws -> [ExpenseBucket] {
        try ExpenseBucket.summing(state.rows.values.lazy.filter { !$0.record.deleted }.map(\.record.expense)
            .filter { filter.matches($0) })
    }

    package func hasUnsent() throws -> Bool { state.pending.contains { $0.state == .unsent } }

    package func conflicts() throws -> [Conflict] { state.conflicts }

    package func metaValue(_ key: StoreMetaKey) throws -> String? { state.meta[key] }

    /// Runs `body` on a copy of the state; a change is persisted, then kept. A thrown error keeps nothing.
    package func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let transaction = StateTransaction(state)
        let result = try body(transaction)
        if transaction.state != state {
            try persist(transaction.state)
            state = transaction.state
        }
        return result
    }
}
