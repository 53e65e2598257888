import ExpenseCore
import ExpenseProtocol
import Foundation

/// The whole content of a store as plain values: what the in-memory store holds and the JSON file store
/// saves. A write works on a copy (``StateTransaction``), so a failure leaves the original untouched.
struct StoreState: Sendable, Equatable {
    struct Row: Sendable, Equatable {
        var record: LocalRecord
        /// Insertion order, for a stable listing of expenses of the same day.
        var order: Int64
    }

    /// The local view of every expense; changed only through ``put(_:)``, which keeps ``totals``.
    private(set) var rows: [UUID: Row] = [:]
    /// Per currency, the live rows' ``LiveTotal`` (no entry for a currency with none), kept by ``put(_:)``.
    private(set) var totals: [Currency: LiveTotal] = [:]
    var nextOrder: Int64 = 1
    var serverCopies: [UUID: Record] = [:]
    /// The queue, in position order.
    var pending: [PendingMutation] = []
    var nextPosition: Int64 = 1
    /// Open conflicts, oldest first.
    var conflicts: [Conflict] = []
    var meta: [StoreMetaKey: String] = [:]

    /// A fresh state with a new client id.
    static func fresh() -> StoreState {
        var state = StoreState()
        state.meta[.clientId] = UUIDText.lowercased(UUID())
        return state
    }

    /// Stores `row` in place of the row of its id, and moves its amount between the currencies' ``totals``.
    mutating func put(_ row: Row) {
        if let old = rows[row.record.id]?.record, !old.deleted {
            let currency = old.expense.currency
            totals[currency, default: LiveTotal()].remove(old.expense.amount)
            if totals[currency]?.count == 0 { totals[currency] = nil }
        }
        if !row.record.deleted {
            totals[row.record.expense.currency, default: LiveTotal()].add(row.record.expense.amount)
        }
        rows[row.record.id] = row
    }

    /// Removes the row of `id`, taking its amount out of the ``totals``.
    mutating func remove(_ id: UUID) {
        guard let old = rows.removeValue(forKey: id)?.record, !old.deleted else { return }
        totals[old.expense.currency, default: LiveTotal()].remove(old.expense.amount)
        if totals[old.expense.currency]?.count == 0 { totals[old.expense.currency] = nil }
    }

    /// Moves the row of `old` to the id `new`, keeping its order (and so the totals).
    mutating func rename(_ old: UUID, to new: UUID) {
        guard var row = rows.removeValue(forKey: old) else { return }
        row.record.expense = row.record.expense.with(id: new)
        rows[new] = row
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

/// A transaction over a copy of a ``StoreState``; the owner keeps the copy only when the body succeeds.
final class StateTransaction: StoreTransaction {
    var state: StoreState

    init(_ state: StoreState) { self.state = state }

    /// Budgets, rules and settings are kept only in the SQLite cache.
    var dataTables: (any DataKindTables)? { nil }

    func record(id: UUID) throws -> LocalRecord? { state.rows[id]?.record }

    func putRecord(_ record: LocalRecord) throws {
        let order = state.rows[record.id]?.order ?? state.nextOrder
        if order == state.nextOrder { state.nextOrder += 1 }
        state.put(StoreState.Row(record: record, order: order))
    }

    func renameRecord(_ old: UUID, to new: UUID) throws { state.rename(old, to: new) }

    func removeRecord(_ id: UUID) throws { state.remove(id) }

    func serverCopy(id: UUID) throws -> Record? { state.serverCopies[id] }

    func putServerCopy(_ record: Record) throws { state.serverCopies[record.expense.id] = record }

    func serverCopies(seqAbove seq: Int64) throws -> [Record] { state.serverCopies.values.filter { $0.seq > seq } }

    func isSettled() throws -> Bool { state.pending.isEmpty && state.conflicts.isEmpty }

    func putSettled(_ record: Record) throws {
        // A later seq is newer whatever the version (an id recreated after a purge, Protocol.md §5.9).
        if let copy = state.serverCopies[record.expense.id], copy.version > record.version, copy.seq >= record.seq { return }
        state.serverCopies[record.expense.id] = record
        try putRecord(LocalRecord(expense: record.expense, baseVersion: record.version, deleted: record.deleted))
    }

    func pending(for id: UUID) throws -> [PendingMutation] { state.pending.filter { $0.id == id } }

    func pending(after position: Int64, limit: Int) throws -> [PendingMutation] {
        Array(state.pending.lazy.filter { $0.position > position }.prefix(limit))
    }

    func appendPending(_ mutation: PendingMutation) throws -> PendingMutation {
        var stored = mutation
        stored.position = state.nextPosition
        state.nextPosition += 1
        state.pending.append(stored)
        return stored
    }

    func updatePending(_ mutation: PendingMutation) throws {
        guard let index = state.pending.firstIndex(where: { $0.position == mutation.position }) else { return }
        state.pending[index] = mutation
    }

    func removePending(position: Int64) throws { state.pending.removeAll { $0.position == position } }

    func conflict(id: UUID) throws -> Conflict? { state.conflicts.first { $0.id == id } }

    func putConflict(_ conflict: Conflict) throws {
        if let index = state.conflicts.firstIndex(where: { $0.id == conflict.id }) {
            state.conflicts[index] = conflict
        } else {
            state.conflicts.append(conflict)
        }
    }

    func removeConflict(id: UUID) throws { state.conflicts.removeAll { $0.id == id } }

    func metaValue(_ key: StoreMetaKey) throws -> String? { state.meta[key] }

    func setMetaValue(_ value: String?, for key: StoreMetaKey) throws { state.meta[key] = value }
}
