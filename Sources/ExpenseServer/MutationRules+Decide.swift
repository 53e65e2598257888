import ExpenseCore
import ExpenseProtocol
import Foundation

/// Steps (2) to (6) of Protocol.md §7.1 for one well-formed mutation of any kind, written once over its
/// ``RecordSchema``.
extension MutationRules {
    /// Decides `mutation` against the record `schema` finds, and writes what is applied.
    func decide<Schema: RecordSchema>(_ mutation: Mutation, schema: Schema, in store: some LedgerStore) throws -> MutationStatus {
        let found = try schema.stored(mutation.id)
        if try schema.belongsToAnotherKind(mutation.id, stored: found) {
            return .rejected(MutationRejection(reason: "invalid_id", field: "id",
                                               message: "id \(UUIDText.lowercased(mutation.id)) belongs to a record of another kind"))
        }
        guard let existing = found else {
            if mutation.type == .delete || mutation.baseVersion > 0 {
                return .rejected(MutationRejection(reason: "not_found", field: "id",
                                                   message: "no \(schema.noun) has id \(UUIDText.lowercased(mutation.id))"))
            }
            return try create(mutation, schema: schema, in: store)
        }
        // A materialised occurrence (Protocol.md §10.4): whatever became of the id, that stays.
        if mutation.ifAbsent { return .applied(version: schema.version(of: existing), seq: schema.seq(of: existing)) }
        let version = schema.version(of: existing)
        if mutation.baseVersion > version {
            return .rejected(MutationRejection(
                reason: "invalid_base_version", field: "baseVersion",
                message: "baseVersion \(mutation.baseVersion) is above the record's version \(version)"))
        }
        switch mutation.type {
        case .delete:
            if schema.isDeleted(existing) { return .applied(version: version, seq: schema.seq(of: existing)) }
            guard mutation.baseVersion == version else { return schema.conflict(existing) }
            let seq = store.head + 1
            try schema.write(nil, version: version + 1, seq: seq, changed: [], replacing: existing)
            return .applied(version: version + 1, seq: seq)
        case .put:
            return try put(mutation, existing: existing, schema: schema, in: store)
        }
    }

    private func create<Schema: RecordSchema>(_ mutation: Mutation, schema: Schema, in store: some LedgerStore) throws -> MutationStatus {
        let values: Schema.Values
        switch schema.completeValues() {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): values = value
        }
        if let rejection = try schema.refusal(storing: values, replacing: nil) { return .rejected(rejection) }
        let seq = store.head + 1
        try schema.write(values, version: 1, seq: seq, changed: [], replacing: nil)
        return .applied(version: 1, seq: seq)
    }

    private func put<Schema: RecordSchema>(_ mutation: Mutation, existing: Schema.Stored, schema: Schema,
                                           in store: some LedgerStore) throws -> MutationStatus {
        let version = schema.version(of: existing)
        // A create (baseVersion 0) and a restore (a tombstone at its version) send every required field; an edit
        // sends only what it changes, merged onto the stored values.
        let isRestore = schema.isDeleted(existing) && mutation.baseVersion == version
        let isComplete = mutation.baseVersion == 0 || isRestore
        let values: Schema.Values
        switch isComplete ? schema.completeValues() : schema.editedValues(existing) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): values = value
        }
        let changed = schema.changedFields(from: existing, to: values)

        // (4) conflict
        if schema.isDeleted(existing) {
            guard isRestore else { return schema.conflict(existing) }
        } else if mutation.baseVersion == 0 {
            // A create of an id that exists (two machines creating the same record): harmless only when it says
            // exactly what is stored.
            return changed.isEmpty ? .applied(version: version, seq: schema.seq(of: existing)) : schema.conflict(existing)
        } else if mutation.baseVersion < version {
            for field in schema.sentFields where schema.version(of: field, in: existing) > mutation.baseVersion {
                if changed.contains(field) { return schema.conflict(existing) }
            }
        }
        if !isRestore && changed.isEmpty { return .applied(version: version, seq: schema.seq(of: existing)) }

        // (5) refused beside the others, (6) applied
        if let rejection = try schema.refusal(storing: values, replacing: schema.isDeleted(existing) ? nil : existing) {
            return .rejected(rejection)
        }
        let seq = store.head + 1
        try schema.write(values, version: version + 1, seq: seq, changed: changed, replacing: existing)
        return .applied(version: version + 1, seq: seq)
    }
}
