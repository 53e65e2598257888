import ExpenseCore
import ExpenseProtocol
import Foundation

/// The client's offline operations on its local store: add, edit, delete, look up by id prefix, list, total,
/// import. Every change is validated by ``ExpenseCore/ExpenseValidator`` and written, together with its
/// pending mutation, by one ``ExpenseStore/commit(_:meta:)``.
package final class LocalLedger {
    /// The fewest characters of an id accepted as a prefix, like git's short hashes.
    package static let minimumPrefixLength = 4

    package let store: any ExpenseStore

    package init(store: any ExpenseStore) {
        self.store = store
    }

    /// The configured default currency, else USD.
    package func defaultCurrency() throws -> Currency {
        try store.metaValue(.currency).flatMap { Currency(code: $0) } ?? .usd
    }

    /// Sets the default currency.
    package func setDefaultCurrency(_ currency: Currency) throws {
        try store.setMetaValue(currency.code, for: .currency)
    }

    /// Validates `draft` (a new id is made when it has none) and stores it with a pending `put` of every field.
    /// - Throws: ``ExpenseCore/ValidationError``, ``StoreError``.
    @discardableResult
    package func add(_ draft: ExpenseDraft) throws -> Expense {
        try add([draft])[0]
    }

    /// Validates every draft, then stores them all in one transaction, or none if any is invalid.
    @discardableResult
    package func add(_ drafts: [ExpenseDraft]) throws -> [Expense] {
        let expenses = try drafts.map { draft in
            var draft = draft
            if draft.id == nil { draft.id = UUID().uuidString.lowercased() }
            return try ExpenseValidator.validate(draft)
        }
        try insert(expenses)
        return expenses
    }

    /// Stores already-validated new expenses (an import) in one transaction, each with a pending `put`.
    package func insert(_ expenses: [Expense]) throws {
        try store.commit(expenses.map { expense in
            var fields = expense.draft
            fields.id = nil
            return StagedChange(record: LocalRecord(expense: expense),
                                mutation: MutationDraft(type: .put, baseVersion: 0, fields: fields))
        }, meta: [:])
    }

    /// The live record whose id starts with `prefix` (at least ``minimumPrefixLength`` characters, any case).
    /// - Throws: ``StoreError/idPrefixTooShort(_:)``, ``StoreError/unknownId(_:)``, ``StoreError/ambiguousId(_:matches:)``.
    package func find(_ prefix: String) throws -> LocalRecord {
        let wanted = prefix.lowercased()
        guard wanted.count >= Self.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let found = try store.records(idPrefix: wanted, limit: 5)
        switch found.count {
        case 0: throw StoreError.unknownId(prefix)
        case 1: return found[0]
        default: throw StoreError.ambiguousId(prefix, matches: found.map { String($0.expense.idString.prefix(8)) })
        }
    }

    /// Applies the non-`nil` fields of `changes` to `record`, validates the result, and stores it with a
    /// pending `put` carrying only the fields that really changed. Nothing is queued when nothing changed.
    /// - Throws: ``ExpenseCore/ValidationError``, ``StoreError``.
    @discardableResult
    package func edit(_ record: LocalRecord, changes: ExpenseDraft) throws -> Expense {
        var changes = changes
        changes.id = nil
        let updated = try ExpenseValidator.validate(record.expense.draft.merging(changes))
        let before = record.expense
        let changed = ExpenseDraft(
            amount: updated.amount != before.amount ? updated.amount : nil,
            currency: updated.currency != before.currency ? updated.currency.code : nil,
            category: updated.category != before.category ? updated.category : nil,
            date: updated.date != before.date ? updated.date.description : nil,
            note: updated.note != before.note ? updated.note : nil)
        guard changed != ExpenseDraft() else { return before }
        var next = record
        next.expense = updated
        try store.commit([StagedChange(record: next, mutation: MutationDraft(type: .put, baseVersion: record.baseVersion,
                                                                            fields: changed))], meta: [:])
        return updated
    }

    /// Marks `record` deleted and queues a `delete`.
    package func delete(_ record: LocalRecord) throws {
        var next = record
        next.deleted = true
        try store.commit([StagedChange(record: next, mutation: MutationDraft(type: .delete, baseVersion: record.baseVersion))],
                         meta: [:])
    }

    /// The live expenses passing `filter`, by date.
    package func list(_ filter: ExpenseFilter = ExpenseFilter()) throws -> [Expense] {
        try store.expenses(matching: filter)
    }

    /// Totals per currency (and per group) of the live expenses the query covers, with the core's aggregator.
    /// - Throws: ``ExpenseCore/ValidationError/amountOverflow``, ``StoreError``.
    package func summary(_ query: SummaryQuery) throws -> Summary {
        let expenses = try store.expenses(matching: ExpenseFilter(from: query.from, to: query.to, category: query.category))
        return try Aggregator.summarize(expenses, query: query)
    }

    /// How many local changes are waiting to be synced (so totals can say they include unsynced changes).
    package func pendingCount() throws -> Int { try store.pendingCount() }
}
