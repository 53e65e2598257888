import ExpenseCore
import ExpenseProtocol
import Foundation

/// Expenses described for the one `decide` (``RecordSchema``): typed values (``Expense``) through
/// ``ExpenseCore/ExpenseValidator``, a put's values possibly worked out ahead (``PreparedPut``), money one
/// conflict field, and the live totals that refuse an amount past `Int64.max`.
struct ExpenseSchema<Store: LedgerStore>: RecordSchema {
    let mutation: Mutation
    let prepared: PreparedPut?
    let rules: MutationRules
    let store: Store
    let writer: HistoryWriter

    var noun: String { "expense" }

    func stored(_ id: UUID) throws -> StoredRecord? { try store.record(id: id) }

    func belongsToAnotherKind(_ id: UUID, stored: StoredRecord?) throws -> Bool {
        try stored == nil && store.dataRecord(id: id) != nil
    }

    func version(of stored: StoredRecord) -> Int64 { stored.version }
    func seq(of stored: StoredRecord) -> Int64 { stored.seq }
    func isDeleted(_ stored: StoredRecord) -> Bool { stored.deleted }
    func version(of field: ExpenseField, in stored: StoredRecord) -> Int64 { stored.fieldVersions[field] }

    func completeValues() -> Result<Expense, MutationRejection> {
        prepared?.values ?? rules.validateComplete(mutation)
    }

    func editedValues(_ existing: StoredRecord) -> Result<Expense, MutationRejection> {
        // Prepared only when these values are what an edit validates too (MutationRules.hasValuesOfItsOwn).
        if let prepared { return prepared.values }
        guard let fields = mutation.sentFields else { return .failure(.putWithoutFields) }
        return rules.convert(fields).flatMap { draft in rules.validate(existing.expense.draft.merging(draft), id: existing.expense.id) }
    }

    func changedFields(from existing: StoredRecord, to new: Expense) -> Set<ExpenseField> {
        let old = existing.expense
        var changed: Set<ExpenseField> = []
        // Money is one value (Protocol.md §7.4): when the pair changes, both of its fields did, so a put that
        // sends either one conflicts with any change of the other.
        if old.amount != new.amount || old.currency != new.currency { changed.formUnion([.amount, .currency]) }
        if !ExactText.same(old.category, new.category) { changed.insert(.category) }
        if old.date != new.date { changed.insert(.date) }
        if !ExactText.same(old.note, new.note) { changed.insert(.note) }
        return changed
    }

    /// The fields sent; a prepared put left its fields behind, all five sent (or a create's, which the
    /// conflict rules do not read).
    var sentFields: Set<ExpenseField> {
        let fields = mutation.sentFields
        return Set(ExpenseField.allCases.filter { fields?.contains($0) ?? ($0 != .id) })
    }

    /// `amount_overflow` when storing `expense` (instead of `existing`, if live) would take its currency's live
    /// total past `Int64.max`.
    func refusal(storing expense: Expense, replacing existing: StoredRecord?) throws -> MutationRejection? {
        var total = try store.liveTotal(currency: expense.currency)
        if let old = existing?.expense, old.currency == expense.currency { total -= old.amount }  // cannot overflow: the total includes it
        guard total.addingReportingOverflow(expense.amount).overflow else { return nil }
        return MutationRejection(ValidationError.amountOverflow)
    }

    func conflict(_ existing: StoredRecord) -> MutationStatus { .conflict(current: existing.record) }

    func write(_ values: Expense?, version: Int64, seq: Int64, changed: Set<ExpenseField>, replacing old: StoredRecord?) throws {
        guard let old else {
            guard let values else { return }
            let stored = StoredRecord(record: Record(expense: values, version: version, seq: seq, deleted: false),
                                      fieldVersions: FieldVersions(all: version))
            return try writer.write(stored, replacing: nil, to: store, created: prepared?.creation)
        }
        var stored = old
        stored.record.version = version
        stored.record.seq = seq
        if let values {
            stored.record.expense = values
            stored.record.deleted = false
            for field in changed { stored.fieldVersions[field] = version }
        } else {
            stored.record.deleted = true
        }
        try writer.write(stored, replacing: old, to: store)
    }
}
