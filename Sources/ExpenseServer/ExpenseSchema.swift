import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Expenses described for the one `decide` (``RecordSchema``): typed values (``Expense``) through
/// ``ExpenseCore/ExpenseValidator``, a put's values possibly worked out ahead (``PreparedPut``), money one
/// conflict field, and the live totals that refuse an amount past `Int64.max`.
struct ExpenseSchema<Store: LedgerStore>: RecordSchema {
    let rules: MutationRules
    let store: Store
    let writer: HistoryWriter

    func noun(_ mutation: Mutation) -> String { "expense" }

    @inline(__always) func stored(_ id: UUID) throws -> StoredRecord? { try store.record(id: id) }

    @inline(__always) func belongsToAnotherKind(_ mutation: Mutation, stored: StoredRecord?) throws -> Bool {
        try stored == nil && store.dataRecord(id: mutation.id) != nil
    }

    @inline(__always) func version(of stored: StoredRecord) -> Int64 { stored.version }
    @inline(__always) func seq(of stored: StoredRecord) -> Int64 { stored.seq }
    @inline(__always) func isDeleted(_ stored: StoredRecord) -> Bool { stored.deleted }
    func version(of field: ExpenseField, in stored: StoredRecord) -> Int64 { stored.fieldVersions[field] }

    @inline(__always) func completeValues(_ mutation: Mutation, prepared: PreparedPut?) -> Result<Expense, MutationRejection> {
        prepared?.values ?? rules.validateComplete(mutation)
    }

    func editedValues(_ mutation: Mutation, prepared: PreparedPut?, existing: StoredRecord) -> Result<Expense, MutationRejection> {
        // Prepared only when these values are what an edit validates too (MutationRules.hasValuesOfItsOwn).
        if let prepared { return prepared.values }
        guard let fields = mutation.sentFields else { return .failure(.putWithoutFields) }
        return rules.convert(fields).flatMap { draft in rules.validate(existing.expense.draft.merging(draft), id: existing.expense.id) }
    }

    func changedFields(from existing: StoredRecord, to new: Expense) -> Set<ExpenseField> {
        var changed: Set<ExpenseField> = []
        // Money is one value (Protocol.md §7.4): when the pair changes, both of its fields did, so a put that
        // sends either one conflicts with any change of the other.
        for field in ExpenseField.values where !field.same(existing.expense, new) { changed.formUnion(field.conflictGroup) }
        return changed
    }

    /// A prepared put left its fields behind: it sent every one.
    func sends(_ field: ExpenseField, _ mutation: Mutation, prepared: PreparedPut?) -> Bool {
        switch mutation.putFields {
        case .sent(let fields)?: fields.contains(field)
        case .prepared?: field != .id
        case nil: false
        }
    }

    func field(named name: String) -> ExpenseField? { ExpenseField(rawValue: name) }

    func sendsGroup(of field: ExpenseField, _ mutation: Mutation, prepared: PreparedPut?) -> Bool {
        field.conflictGroup.contains { sends($0, mutation, prepared: prepared) }
    }

    /// `amount_overflow` when storing `expense` (instead of `existing`, if live) would take its currency's live
    /// total past `Int64.max`; for a payer or a split that changes, a member that is not one of the ledger's
    /// (`unknown_member`) or has left (`member_left`).
    @inline(__always) func refusal(storing expense: Expense, of mutation: Mutation, replacing existing: StoredRecord?) throws -> MutationRejection? {
        if expense.paidBy != nil || expense.split != nil, let rejection = try memberRefusal(expense, replacing: existing?.expense) {
            return rejection
        }
        var total = try store.liveTotal(currency: expense.currency)
        if let old = existing?.expense, old.currency == expense.currency { total -= old.amount }  // cannot overflow: the total includes it
        guard total.addingReportingOverflow(expense.amount).overflow else { return nil }
        return MutationRejection(ValidationError.amountOverflow)
    }

    /// The members a new payer or a new split names must be the ledger's and not have left; a split kept as it was
    /// may name members who left since (they stay in past splits).
    private func memberRefusal(_ expense: Expense, replacing old: Expense?) throws -> MutationRejection? {
        let refusal = try Member.refusal(of: expense, replacing: old) { id in
            guard let record = try store.dataRecord(id: id), record.record.kind == .member, !record.deleted else { return nil }
            return try? LedgerDataValidator.member(id: id, fields: record.record.fields)
        }
        return refusal.map { MutationRejection(reason: $0.error.code, field: $0.field.rawValue, message: $0.error.message) }
    }

    /// The tags merge as a set (``ExpenseCore/ExpenseTags/merge(base:mine:theirs:touched:)``) when they changed
    /// since the edit's base and the edit sends other tags than the record's: the base set and every tag changed
    /// since are read from the record's history (``tagChanges(of:since:)``). Any other field is left to the
    /// conflict rule.
    func mergingConcurrentEdits(_ values: Expense, of mutation: Mutation, prepared: PreparedPut?,
                                existing: StoredRecord) throws -> (values: Expense, merged: Set<ExpenseField>)? {
        let current = existing.expense
        // The tags are the one field that merges (ExpenseField.mergesConcurrentEdits).
        guard existing.fieldVersions[.tags] > mutation.baseVersion, sends(.tags, mutation, prepared: prepared),
              !ExpenseField.tags.same(values, current) else { return (values, []) }
        guard let history = try tagChanges(of: existing, since: mutation.baseVersion),
              let tags = ExpenseTags.merge(base: history.base, mine: values.tags, theirs: current.tags, touched: history.touched),
              tags.count <= ExpenseTags.maximumCount  // a union past the limit is for a person to decide
        else { return nil }
        return (values.with(tags: tags), [.tags])
    }

    /// The tags `existing` had at version `base`, and every tag added or removed in a later version, from its
    /// history (Protocol.md §5.8: each version's change of the tags, from and to); `nil` when the history does
    /// not hold every version after `base` and the tags at `base` (compacted, or written in this same
    /// transaction and not readable yet): then nothing can be merged safely.
    func tagChanges(of existing: StoredRecord, since base: Int64) throws -> (base: [String], touched: [String])? {
        let name = ExpenseField.tags.conflictGroupName
        let limit = Int(clamping: existing.version)
        let entries = try store.history(HistoryRequest(id: existing.expense.id, since: 0, limit: min(limit, HistoryRequest.limitRange.upperBound)),
                                        limit: limit)
        // Every version from the first kept to the record's own, one entry each, the first at or before base + 1.
        guard let first = entries.first, let last = entries.last, last.version == existing.version, first.version <= base + 1,
              zip(entries, entries.dropFirst()).allSatisfy({ $1.version == $0.version + 1 }) else { return nil }
        // A creation lists the tags only when there are some: before any change of them, none.
        var baseTags: [String]? = first.version == 1 ? [] : nil
        var touched: [String] = []
        for entry in entries {
            guard let change = entry.changes.first(where: { $0.field == name }), case .text(let to) = change.to else { continue }
            let after = ExpenseTags.parse(to)
            if entry.version <= base {
                baseTags = after
            } else {
                var before: [String] = []
                if case .text(let from)? = change.from { before = ExpenseTags.parse(from) }
                touched += after.filter { !ExpenseTags.contains(before, $0) } + before.filter { !ExpenseTags.contains(after, $0) }
            }
        }
        return baseTags.map { ($0, touched) }
    }

    func conflict(_ existing: StoredRecord) -> MutationStatus { .conflict(current: existing.record) }

    @inline(__always) func answer(_ stored: StoredRecord) -> AppliedRecord { .expense(stored.record) }

    @inline(__always) func create(_ values: Expense, of mutation: Mutation, prepared: PreparedPut?, seq: Int64) throws -> StoredRecord {
        let stored = StoredRecord(record: Record(expense: values, version: 1, seq: seq, deleted: false),
                                  fieldVersions: FieldVersions(all: 1))
        try writer.write(stored, replacing: nil, to: store, created: prepared?.isCreate ?? false)
        return stored
    }

    @inline(__always) func write(_ values: Expense?, of mutation: Mutation, prepared: PreparedPut?, version: Int64, seq: Int64,
                                 changed: Set<ExpenseField>, replacing old: StoredRecord) throws -> StoredRecord {
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
        return stored
    }
}
