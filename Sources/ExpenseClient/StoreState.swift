import ExpenseCore
import Foundation

/// The whole content of a store as plain values: what the in-memory store holds and the JSON file store
/// saves. `apply` is the transaction: it works on a copy, so a failure leaves the original untouched.
struct StoreState: Sendable, Equatable {
    struct Row: Sendable, Equatable {
        var record: LocalRecord
        /// Insertion order, for a stable listing of expenses of the same day.
        var order: Int64
    }

    var rows: [UUID: Row] = [:]
    var nextOrder: Int64 = 1
    var pending: [PendingMutation] = []
    var meta: [StoreMetaKey: String] = [:]

    /// A fresh state with a new client id.
    static func fresh() -> StoreState {
        var state = StoreState()
        state.meta[.clientId] = UUID().uuidString.lowercased()
        state.meta[.nextMutationId] = "1"
        return state
    }

    /// Applies a commit; returns the appended mutations.
    mutating func apply(_ changes: [StagedChange], meta updates: [StoreMetaKey: String?]) -> [PendingMutation] {
        var appended: [PendingMutation] = []
        var nextId = meta[.nextMutationId].flatMap { Int64($0) } ?? 1
        for change in changes {
            let order = rows[change.record.id]?.order ?? nextOrder
            if order == nextOrder { nextOrder += 1 }
            rows[change.record.id] = Row(record: change.record, order: order)
            if let mutation = change.mutation {
                let numbered = PendingMutation(mutationId: nextId, type: mutation.type, id: change.record.id,
                                               baseVersion: mutation.baseVersion, fields: mutation.fields)
                pending.append(numbered)
                appended.append(numbered)
                nextId += 1
            }
        }
        if !appended.isEmpty { meta[.nextMutationId] = String(nextId) }
        for (key, value) in updates { meta[key] = value }
        return appended
    }

    func live(idPrefix: String, limit: Int) -> [LocalRecord] {
        Array(rows.values.filter { !$0.record.deleted && $0.record.expense.idString.hasPrefix(idPrefix) }
            .sorted { $0.order < $1.order }.prefix(limit).map(\.record))
    }

    func expenses(matching filter: ExpenseFilter) -> [Expense] {
        rows.values.filter { !$0.record.deleted && filter.matches($0.record.expense) }
            .sorted { ($0.record.expense.date, $0.order) < ($1.record.expense.date, $1.order) }
            .map(\.record.expense)
    }
}
