import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Steps (2) to (6) of Protocol.md §7.1 for one well-formed mutation of any kind, written once over its
/// ``RecordSchema``.
extension MutationRules {
    /// Decides `mutation` against the record `schema` finds, and writes what is applied; an applied result
    /// carries the record as it is then (written now, or left as it was).
    ///
    /// - Note: inlined into its caller, where the schema is a concrete type (and so are `ExpenseSchema`'s small
    ///   methods): left generic, every create paid about 5,000 instructions (11 %) for looking up its types at
    ///   run time (`Benchmarks/push-profile`, 500-mutation pushes); inlined, it costs what the code written for
    ///   expenses alone did (22.63 M instructions per push against 22.53–22.72 M).
    @inline(__always)
    func decide<Schema: RecordSchema>(_ mutation: Mutation, prepared: PreparedPut?, schema: Schema,
                                      in store: some LedgerStore) throws -> MutationResult {
        let found = try schema.stored(mutation.id)
        if try schema.belongsToAnotherKind(mutation, stored: found) {
            return MutationResult(mutation, .rejected(MutationRejection(
                reason: "invalid_id", field: "id",
                message: "id \(UUIDText.lowercased(mutation.id)) belongs to a record of another kind")))
        }
        guard let existing = found else {
            if mutation.type == .delete || mutation.baseVersion > 0 {
                return MutationResult(mutation, .rejected(MutationRejection(
                    reason: "not_found", field: "id",
                    message: "no \(schema.noun(mutation)) has id \(UUIDText.lowercased(mutation.id))")))
            }
            return try create(mutation, prepared: prepared, schema: schema, in: store)
        }
        // A materialised occurrence (Protocol.md §10.4): whatever became of the id, that stays.
        if mutation.ifAbsent { return MutationResult(mutation, applied: existing, schema) }
        let version = schema.version(of: existing)
        if mutation.baseVersion > version {
            return MutationResult(mutation, .rejected(MutationRejection(
                reason: "invalid_base_version", field: "baseVersion",
                message: "baseVersion \(mutation.baseVersion) is above the record's version \(version)")))
        }
        switch mutation.type {
        case .delete:
            if schema.isDeleted(existing) { return MutationResult(mutation, applied: existing, schema) }
            guard mutation.baseVersion == version else { return MutationResult(mutation, schema.conflict(existing)) }
            let tombstone = try schema.write(nil, of: mutation, prepared: prepared, version: version + 1, seq: store.head + 1,
                                             changed: [], replacing: existing)
            return MutationResult(mutation, applied: tombstone, schema)
        case .put:
            return try put(mutation, prepared: prepared, existing: existing, schema: schema, in: store)
        }
    }

    @inline(__always)
    private func create<Schema: RecordSchema>(_ mutation: Mutation, prepared: PreparedPut?, schema: Schema,
                                              in store: some LedgerStore) throws -> MutationResult {
        let values: Schema.Values
        switch schema.completeValues(mutation, prepared: prepared) {
        case .failure(let rejection): return MutationResult(mutation, .rejected(rejection))
        case .success(let value): values = value
        }
        if let rejection = try schema.refusal(storing: values, of: mutation, replacing: nil) { return MutationResult(mutation, .rejected(rejection)) }
        return MutationResult(mutation, applied: try schema.create(values, of: mutation, prepared: prepared, seq: store.head + 1), schema)
    }

    @inline(__always)
    private func put<Schema: RecordSchema>(_ mutation: Mutation, prepared: PreparedPut?, existing: Schema.Stored,
                                           schema: Schema, in store: some LedgerStore) throws -> MutationResult {
        let version = schema.version(of: existing)
        // A create (baseVersion 0) and a restore (a tombstone at its version) send every required field; an edit
        // sends only what it changes, merged onto the stored values.
        let isRestore = schema.isDeleted(existing) && mutation.baseVersion == version
        let isComplete = mutation.baseVersion == 0 || isRestore
        var values: Schema.Values
        switch isComplete ? schema.completeValues(mutation, prepared: prepared)
                          : schema.editedValues(mutation, prepared: prepared, existing: existing) {
        case .failure(let rejection):
            // A stale edit refused for a stored field it did not send, of a conflict group it sends that changed since
            // its base (an amount sent over a split another machine made exact for the old amount): what it was made
            // on is gone, so it is a conflict to show. A value refused for itself stays a rejection (7.1's order).
            if !isComplete, !schema.isDeleted(existing), mutation.baseVersion < version,
               let field = rejection.field.flatMap(schema.field(named:)), !schema.sends(field, mutation, prepared: prepared),
               schema.version(of: field, in: existing) > mutation.baseVersion, schema.sendsGroup(of: field, mutation, prepared: prepared) {
                return MutationResult(mutation, schema.conflict(existing))
            }
            return MutationResult(mutation, .rejected(rejection))
        case .success(let value): values = value
        }
        // A set field (an expense's tags) edited since the edit's base merges with that edit as a set: the merged
        // values replace the edit's, and the field no longer conflicts. A merge that cannot be made (one side added
        // a tag the other removed, or the history of the base is gone) is the ordinary conflict.
        var merged: Set<Schema.Field> = []
        if !isComplete, !schema.isDeleted(existing), mutation.baseVersion > 0, mutation.baseVersion < version {
            guard let merge = try schema.mergingConcurrentEdits(values, of: mutation, prepared: prepared, existing: existing) else {
                return MutationResult(mutation, schema.conflict(existing))
            }
            values = merge.values
            merged = merge.merged
        }
        let changed = schema.changedFields(from: existing, to: values)

        // (4) conflict
        if schema.isDeleted(existing) {
            guard isRestore else { return MutationResult(mutation, schema.conflict(existing)) }
        } else if mutation.baseVersion == 0 {
            // A create of an id that exists (two machines creating the same record): harmless only when it says
            // exactly what is stored.
            return changed.isEmpty ? MutationResult(mutation, applied: existing, schema) : MutationResult(mutation, schema.conflict(existing))
        } else if mutation.baseVersion < version {
            // A field changed since the version the edit was made on, which the edit sends too.
            for field in changed where schema.version(of: field, in: existing) > mutation.baseVersion
                && schema.sends(field, mutation, prepared: prepared) && !merged.contains(field) {
                return MutationResult(mutation, schema.conflict(existing))
            }
        }
        if !isRestore && changed.isEmpty { return MutationResult(mutation, applied: existing, schema) }

        // (5) refused beside the others, (6) applied
        if let rejection = try schema.refusal(storing: values, of: mutation, replacing: schema.isDeleted(existing) ? nil : existing) {
            return MutationResult(mutation, .rejected(rejection))
        }
        let written = try schema.write(values, of: mutation, prepared: prepared, version: version + 1, seq: store.head + 1,
                                       changed: changed, replacing: existing)
        return MutationResult(mutation, applied: written, schema)
    }
}

extension MutationResult {
    /// `mutation`'s answer when nothing of it applies: a rejection or a conflict.
    @inline(__always) init(_ mutation: Mutation, _ status: MutationStatus) {
        self.init(mutationId: mutation.mutationId, status: status)
    }

    /// `mutation` applied: `stored` is the record as it is now, written by the mutation or left as it was, which the
    /// answer carries (`record`, Protocol.md §5.2); its version and seq are the answer's.
    @inline(__always) init<Schema: RecordSchema>(_ mutation: Mutation, applied stored: Schema.Stored, _ schema: Schema) {
        self.init(mutationId: mutation.mutationId, status: .applied(version: schema.version(of: stored), seq: schema.seq(of: stored)),
                  record: schema.answer(stored))
    }
}
