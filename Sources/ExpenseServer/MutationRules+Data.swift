import ExpenseCore
import ExpenseProtocol
import Foundation

/// The rules of Protocol.md §7 for budgets, recurring rules and settings (§10): the same precedence, exactly-once
/// bookkeeping (done by ``MutationRules/apply(clientId:items:to:)`` for every kind alike), creates, edits of the
/// fields sent only, per-field conflicts with money as one field, deletes and restores; every value validated by
/// ``LedgerDataValidator``, the function the client uses. Nothing here touches an expense's totals.
extension MutationRules {
    /// Steps (2) to (6) for a well-formed mutation of another kind than an expense.
    func decideData(_ mutation: Mutation, in store: some LedgerStore, writer: HistoryWriter) throws -> MutationStatus {
        if try store.record(id: mutation.id) != nil { return .rejected(Self.otherKind(mutation)) }
        guard let existing = try store.dataRecord(id: mutation.id) else {
            if mutation.type == .delete || mutation.baseVersion > 0 {
                return .rejected(MutationRejection(reason: "not_found", field: "id",
                                                   message: "no \(mutation.kind.rawValue) has id \(UUIDText.lowercased(mutation.id))"))
            }
            return try createData(mutation, in: store, writer: writer)
        }
        guard existing.record.kind == mutation.kind else { return .rejected(Self.otherKind(mutation)) }
        if mutation.baseVersion > existing.version {
            return .rejected(MutationRejection(
                reason: "invalid_base_version", field: "baseVersion",
                message: "baseVersion \(mutation.baseVersion) is above the record's version \(existing.version)"))
        }
        switch mutation.type {
        case .delete:
            if existing.deleted { return .applied(version: existing.version, seq: existing.seq) }
            guard mutation.baseVersion == existing.version else { return .dataConflict(current: existing.record) }
            var stored = existing
            stored.record.version += 1
            stored.record.seq = store.head + 1
            stored.record.deleted = true
            try writer.writeData(stored, replacing: existing, to: store)
            return .applied(version: stored.version, seq: stored.seq)
        case .put:
            return try putData(mutation, existing: existing, in: store, writer: writer)
        }
    }

    private static func otherKind(_ mutation: Mutation) -> MutationRejection {
        MutationRejection(reason: "invalid_id", field: "id",
                          message: "id \(UUIDText.lowercased(mutation.id)) belongs to a record of another kind")
    }

    private func createData(_ mutation: Mutation, in store: some LedgerStore, writer: HistoryWriter) throws -> MutationStatus {
        let fields: LedgerDataFields
        switch validatedData(mutation, fields: sentData(mutation)) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): fields = value
        }
        let record = DataRecord(kind: mutation.kind, id: mutation.id, fields: fields, version: 1, seq: store.head + 1, deleted: false)
        try writer.writeData(StoredDataRecord(record: record, fieldVersions: [:]), replacing: nil, to: store)
        return .applied(version: 1, seq: record.seq)
    }

    private func putData(_ mutation: Mutation, existing: StoredDataRecord, in store: some LedgerStore,
                         writer: HistoryWriter) throws -> MutationStatus {
        let sent: LedgerDataFields
        switch sentData(mutation) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): sent = value
        }
        let isRestore = existing.deleted && mutation.baseVersion == existing.version
        let isComplete = mutation.baseVersion == 0 || isRestore
        let merged = isComplete ? sent : existing.record.fields.merging(sent) { _, new in new }
        let fields: LedgerDataFields
        switch validatedData(mutation, fields: .success(merged)) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): fields = value
        }
        let changed = Self.changedDataFields(from: existing.record.fields, to: fields)
        if existing.deleted {
            guard isRestore else { return .dataConflict(current: existing.record) }
        } else if mutation.baseVersion == 0 {
            // A create of an id that exists (two machines setting the same budget): harmless only when it says
            // exactly what is stored.
            return changed.isEmpty ? .applied(version: existing.version, seq: existing.seq) : .dataConflict(current: existing.record)
        } else if mutation.baseVersion < existing.version {
            for name in sent.keys {
                let field = LedgerDataValidator.conflictField(name)
                if existing.version(of: name) > mutation.baseVersion, changed.contains(field) {
                    return .dataConflict(current: existing.record)
                }
            }
        }
        if !isRestore && changed.isEmpty { return .applied(version: existing.version, seq: existing.seq) }
        let version = existing.version + 1
        var fieldVersions = existing.fieldVersions
        for field in changed { fieldVersions[field] = version }
        let record = DataRecord(kind: mutation.kind, id: mutation.id, fields: fields, version: version, seq: store.head + 1, deleted: false)
        try writer.writeData(StoredDataRecord(record: record, fieldVersions: fieldVersions), replacing: existing, to: store)
        return .applied(version: version, seq: record.seq)
    }

    private func sentData(_ mutation: Mutation) -> Result<LedgerDataFields, MutationRejection> {
        guard let fields = mutation.fields, mutation.type == .put else { return .failure(.putWithoutFields) }
        return LedgerDataJSON.fields(fields)
    }

    private func validatedData(_ mutation: Mutation, fields: Result<LedgerDataFields, MutationRejection>)
        -> Result<LedgerDataFields, MutationRejection> {
        fields.flatMap { fields in
            do throws(LedgerDataError) {
                return .success(try LedgerDataValidator.validate(kind: mutation.kind, id: mutation.id, fields: fields))
            } catch {
                return .failure(MutationRejection(reason: error.code, field: error.field, message: error.message))
            }
        }
    }

    /// The conflict fields (money as one) whose values differ, compared exactly (``LedgerDataValue/same(as:)``).
    static func changedDataFields(from old: LedgerDataFields, to new: LedgerDataFields) -> Set<String> {
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
}
