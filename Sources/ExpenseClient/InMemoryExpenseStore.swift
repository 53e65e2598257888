import ExpenseCore
import Foundation

/// A store that keeps everything in memory: for tests and for dry runs.
public final class InMemoryExpenseStore: ExpenseStore {
    private var state = StoreState.fresh()

    public init() {}

    public var location: String { ":memory:" }

    public func record(id: UUID) throws -> LocalRecord? { state.rows[id]?.record }

    public func records(idPrefix: String, limit: Int) throws -> [LocalRecord] { state.live(idPrefix: idPrefix, limit: limit) }

    public func expenses(matching filter: ExpenseFilter) throws -> [Expense] { state.expenses(matching: filter) }

    public func liveCount() throws -> Int { state.rows.values.count { !$0.record.deleted } }

    @discardableResult
    public func commit(_ changes: [StagedChange], meta: [StoreMetaKey: String?]) throws -> [PendingMutation] {
        state.apply(changes, meta: meta)
    }

    public func pendingMutations(limit: Int) throws -> [PendingMutation] { Array(state.pending.prefix(limit)) }

    public func pendingCount() throws -> Int { state.pending.count }

    public func removePendingMutations(through mutationId: Int64) throws {
        state.pending.removeAll { $0.mutationId <= mutationId }
    }

    public func metaValue(_ key: StoreMetaKey) throws -> String? { state.meta[key] }
}
