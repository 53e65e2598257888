import ExpenseCore
import Foundation

/// A store that keeps everything in memory: for tests and for dry runs.
package final class InMemoryExpenseStore: ExpenseStore {
    private var state = StoreState.fresh()

    package init() {}

    package var location: String { ":memory:" }

    package func record(id: UUID) throws -> LocalRecord? { state.rows[id]?.record }

    package func records(idPrefix: String, limit: Int) throws -> [LocalRecord] { state.live(idPrefix: idPrefix, limit: limit) }

    package func expenses(matching filter: ExpenseFilter) throws -> [Expense] { state.expenses(matching: filter) }

    package func liveCount() throws -> Int { state.rows.values.count { !$0.record.deleted } }

    @discardableResult
    package func commit(_ changes: [StagedChange], meta: [StoreMetaKey: String?]) throws -> [PendingMutation] {
        state.apply(changes, meta: meta)
    }

    package func pendingMutations(limit: Int) throws -> [PendingMutation] { Array(state.pending.prefix(limit)) }

    package func pendingCount() throws -> Int { state.pending.count }

    package func removePendingMutations(through mutationId: Int64) throws {
        state.pending.removeAll { $0.mutationId <= mutationId }
    }

    package func metaValue(_ key: StoreMetaKey) throws -> String? { state.meta[key] }
}
