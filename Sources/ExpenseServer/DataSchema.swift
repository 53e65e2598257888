import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Budgets, recurring rules and settings described for the one `decide` (``RecordSchema``): fields as JSON
/// values checked by ``ExpenseCore/LedgerDataValidator`` (the function the client uses), conflict fields by
/// ``LedgerDataValidator/conflictField(_:)`` (an amount and its currency are one, `money`). Nothing of them
/// touches an expense's totals. A new kind of this shape is described in `LedgerDataValidator` alone.
struct DataSchema<Store: LedgerStore>: RecordSchema {
    let store: Store
    let writer: HistoryWriter

    func noun(_ mutation: Mutation) -> String { mutation.kind.rawValue }

    func stored(_ id: UUID) throws -> StoredDataRecord? { try store.dataRecord(id: id) }

    func belongsToAnotherKind(_ mutation: Mutation, stored: StoredDataRecord?) throws -> Bool {
        if let stored { return stored.record.kind != mutation.kind }
        return try store.record(id: mutation.id) != nil
    }

    /// The sent fields converted (a value of a JSON type the kinds never use is `invalid_value`).
    private func sent(_ mutation: Mutation) -> Result<LedgerDataFields, MutationRejection> {
        guard let fields = mutation.fields, mutation.type == .put else { return .failure(.putWithoutFields) }
        return LedgerDataJSON.fields(fields)
    }

    func version(of stored: StoredDataRecord) -> Int64 { stored.version }
    func seq(of stored: StoredDataRecord) -> Int64 { stored.seq }
    func isDeleted(_ stored: StoredDataRecord) -> Bool { stored.deleted }
    func version(of field: String, in stored: StoredDataRecord) -> Int64 { stored.version(of: field) }

    func completeValues(_ mutation: Mutation, prepared: PreparedPut?) -> Result<LedgerDataFields, MutationRejection> {
        sent(mutation).flatMap { validated($0, of: mutation) }
    }

    func editedValues(_ mutation: Mutation, prepared: PreparedPut?, existing: StoredDataRecord) -> Result<LedgerDataFields, MutationRejection> {
        sent(mutation).map { existing.record.fields.merging($0) { _, new in new } }.flatMap { validated($0, of: mutation) }
    }

    /// The conflict fields (money as one) whose values differ, compared exactly (``LedgerDataValue/same(as:)``).
    func changedFields(from existing: StoredDataRecord, to new: LedgerDataFields) -> Set<String> {
        let old = existing.record.fields
        var changed: Set<String> = []
        for name in Set(old.keys).union(new.keys) {
            let same = switch (old[name], new[name]) {
            case (nil, nil): true
            case (let a?, let b?): a.same(as: b)
            default: false
            }
            if !same { changed.insert(LedgerDataValidator.conflictField(name)) }
        }
        return changed
    }

    func sends(_ field: String, _ mutation: Mutation, prepared: PreparedPut?) -> Bool {
        mutation.fields?.keys.contains { LedgerDataValidator.conflictField($0) == field } ?? false
    }

    func field(named name: String) -> String? { LedgerDataValidator.conflictField(name) }

    /// ``sends(_:_:prepared:)`` already compares conflict fields.
    func sendsGroup(of field: String, _ mutation: Mutation, prepared: PreparedPut?) -> Bool {
        sends(field, mutation, prepared: prepared)
    }

    /// A transfer's members must be member records (`unknown_member`); `member_exists` when another live member has
    /// the name a member's values give (by its bytes). Read page by
    /// page from every record of the ledger's other kinds: a member is added or renamed rarely, and a ledger has
    /// few records besides expenses.
    func refusal(storing values: LedgerDataFields, of mutation: Mutation, replacing existing: StoredDataRecord?) throws -> MutationRejection? {
        if mutation.kind == .transfer { return try unknownMember(in: values, named: ["from", "to"]) }
        guard mutation.kind == .member, case .text(let name)? = values["name"] else { return nil }
        if let existing, case .text(let old)? = existing.record.fields["name"], ExactText.same(old, name) { return nil }
        let pageSize = 1000
        var since: Int64 = 0
        while true {
            let page = try store.dataChanges(since: since, limit: pageSize)
            let others = page.lazy.filter { $0.kind == .member && !$0.deleted && $0.id != mutation.id }
                .compactMap { try? LedgerDataValidator.member(id: $0.id, fields: $0.fields) }
            // The client's rule too (`member add`, `rename`): ``Member/named(_:in:)``.
            if let other = Member.named(name, in: others) {
                let error = LedgerDataError.memberExists(other.name)
                return MutationRejection(reason: error.code, field: error.field, message: error.message)
            }
            guard page.count == pageSize, let last = page.last else { return nil }
            since = last.seq
        }
    }

    /// `unknown_member` when one of `fields` of `values` (a transfer's `from` and `to`) is not a member record's
    /// id; a member who left may still pay or be paid back.
    private func unknownMember(in values: LedgerDataFields, named fields: [String]) throws -> MutationRejection? {
        for field in fields {
            guard case .text(let text)? = values[field] else { continue }
            guard let id = UUIDText.parse(text), let record = try store.dataRecord(id: id), record.record.kind == .member,
                  !record.deleted else {
                let error = SplitError.unknownMember(text)
                return MutationRejection(reason: error.code, field: field, message: error.message)
            }
        }
        return nil
    }

    /// No field of a budget, rule or setting merges: each concurrent change of one is a conflict.
    func mergingConcurrentEdits(_ values: Values, of mutation: Mutation, prepared: PreparedPut?,
                                existing: StoredDataRecord) throws -> (values: Values, merged: Set<Field>)? {
        (values, [])
    }

    func conflict(_ existing: StoredDataRecord) -> MutationStatus { .dataConflict(current: existing.record) }

    func answer(_ stored: StoredDataRecord) -> AppliedRecord { .data(stored.record) }

    func create(_ values: LedgerDataFields, of mutation: Mutation, prepared: PreparedPut?, seq: Int64) throws -> StoredDataRecord {
        let stored = StoredDataRecord(
            record: DataRecord(kind: mutation.kind, id: mutation.id, fields: values, version: 1, seq: seq, deleted: false),
            fieldVersions: [:])
        try writer.writeData(stored, replacing: nil, to: store)
        return stored
    }

    func write(_ values: LedgerDataFields?, of mutation: Mutation, prepared: PreparedPut?, version: Int64, seq: Int64,
               changed: Set<String>, replacing old: StoredDataRecord) throws -> StoredDataRecord {
        var stored = old
        stored.record.version = version
        stored.record.seq = seq
        if let values {
            stored.record.fields = values
            stored.record.deleted = false
            for field in changed { stored.fieldVersions[field] = version }
        } else {
            stored.record.deleted = true
        }
        try writer.writeData(stored, replacing: old, to: store)
        return stored
    }

    private func validated(_ fields: LedgerDataFields, of mutation: Mutation) -> Result<LedgerDataFields, MutationRejection> {
        do throws(LedgerDataError) {
            return .success(try LedgerDataValidator.validate(kind: mutation.kind, id: mutation.id, fields: fields))
        } catch {
            return .failure(MutationRejection(reason: error.code, field: error.field, message: error.message))
        }
    }
}
