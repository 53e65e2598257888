import ExpenseCore
import ExpenseProtocol
import Foundation

/// A store kept in one JSON file, loaded whole when opened and rewritten whole (atomically: temporary file,
/// fsync, rename, fsync of the directory) on every commit. Simple and inspectable; fine for small ledgers.
package final class JSONFileExpenseStore: ExpenseStore {
    package let location: String
    private var state: StoreState

    /// Opens the file at `path`, creating it (mode 0600) when it does not exist.
    /// - Throws: ``StoreError/unreadable(path:reason:)`` when the file exists but cannot be read or parsed.
    package init(path: String) throws {
        location = path
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw StoreError.unreadable(path: path, reason: "permission denied or not a regular file")
            }
            state = try Self.decode(data, path: path)
        } else {
            state = StoreState.fresh()
            try save(state)
        }
    }

    package func record(id: UUID) throws -> LocalRecord? { state.rows[id]?.record }

    package func records(idPrefix: String, limit: Int) throws -> [LocalRecord] { state.live(idPrefix: idPrefix, limit: limit) }

    package func expenses(matching filter: ExpenseFilter) throws -> [Expense] { state.expenses(matching: filter) }

    package func liveCount() throws -> Int { state.rows.values.count { !$0.record.deleted } }

    @discardableResult
    package func commit(_ changes: [StagedChange], meta: [StoreMetaKey: String?]) throws -> [PendingMutation] {
        var next = state
        let appended = next.apply(changes, meta: meta)
        try save(next)
        state = next
        return appended
    }

    package func pendingMutations(limit: Int) throws -> [PendingMutation] { Array(state.pending.prefix(limit)) }

    package func pendingCount() throws -> Int { state.pending.count }

    package func removePendingMutations(through mutationId: Int64) throws {
        var next = state
        next.pending.removeAll { $0.mutationId <= mutationId }
        try save(next)
        state = next
    }

    package func metaValue(_ key: StoreMetaKey) throws -> String? { state.meta[key] }

    // MARK: - The file format

    private struct File: Codable {
        var format: Int
        var nextOrder: Int64
        var expenses: [Entry]
        var pending: [MutationEntry]
        var meta: [String: String]
    }

    private struct Entry: Codable {
        var id: String, amount: Int64, currency: String, category: String, date: String, note: String
        var baseVersion: Int64, deleted: Bool, order: Int64
    }

    private struct MutationEntry: Codable {
        var mutationId: Int64, type: String, id: String, baseVersion: Int64
        var amount: Int64?, currency: String?, category: String?, date: String?, note: String?
    }

    private func save(_ state: StoreState) throws {
        let file = File(
            format: 1, nextOrder: state.nextOrder,
            expenses: state.rows.values.sorted { $0.order < $1.order }.map { row in
                let expense = row.record.expense
                return Entry(id: expense.idString, amount: expense.amount, currency: expense.currency.code,
                             category: expense.category, date: expense.date.description, note: expense.note,
                             baseVersion: row.record.baseVersion, deleted: row.record.deleted, order: row.order)
            },
            pending: state.pending.map { mutation in
                MutationEntry(mutationId: mutation.mutationId, type: mutation.type.rawValue,
                              id: mutation.id.uuidString.lowercased(), baseVersion: mutation.baseVersion,
                              amount: mutation.fields.amount, currency: mutation.fields.currency,
                              category: mutation.fields.category, date: mutation.fields.date, note: mutation.fields.note)
            },
            meta: Dictionary(uniqueKeysWithValues: state.meta.map { ($0.key.rawValue, $0.value) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do { data = try encoder.encode(file) } catch {
            throw StoreError.writeFailed(path: location, reason: "cannot encode: \(error)")
        }
        try FileSystem.writeAtomically(data, to: location)
    }

    private static func decode(_ data: Data, path: String) throws -> StoreState {
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw StoreError.unreadable(path: path, reason: "the file is damaged (not the expected JSON)")
        }
        guard file.format == 1 else {
            throw StoreError.unreadable(path: path, reason: "format \(file.format) is newer than this program understands")
        }
        var state = StoreState()
        state.nextOrder = file.nextOrder
        for entry in file.expenses {
            let expense: Expense
            do {
                expense = try ExpenseValidator.validate(ExpenseDraft(
                    id: entry.id, amount: entry.amount, currency: entry.currency, category: entry.category,
                    date: entry.date, note: entry.note))
            } catch {
                throw StoreError.unreadable(path: path, reason: "the file is damaged (expense \(entry.id): \(error))")
            }
            state.rows[expense.id] = StoreState.Row(
                record: LocalRecord(expense: expense, baseVersion: entry.baseVersion, deleted: entry.deleted), order: entry.order)
        }
        for entry in file.pending {
            guard let type = MutationType(rawValue: entry.type), let id = UUID(uuidString: entry.id) else {
                throw StoreError.unreadable(path: path, reason: "the file is damaged (pending mutation \(entry.mutationId))")
            }
            state.pending.append(PendingMutation(
                mutationId: entry.mutationId, type: type, id: id, baseVersion: entry.baseVersion,
                fields: ExpenseDraft(amount: entry.amount, currency: entry.currency, category: entry.category,
                                     date: entry.date, note: entry.note)))
        }
        for (key, value) in file.meta {
            if let key = StoreMetaKey(rawValue: key) { state.meta[key] = value }
        }
        return state
    }
}
