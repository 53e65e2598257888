import ExpenseCore
import ExpenseProtocol
import Foundation

/// Turns the `fields` object of a `put` into a partial draft: unknown keys and wrong JSON types are refused
/// with the field's own reason.
package typealias FieldsConverter = @Sendable (MutationFields) -> Result<ExpenseDraft, MutationRejection>

/// The daemon's decision for each mutation of a push: pure and synchronous, against any ``LedgerStore``.
///
/// Precedence for one mutation (Protocol.md §7.1): duplicate and gap first; then (1) malformed,
/// (2) `not_found` / `invalid_base_version`, (3) field validation, (4) conflict, (5) overflow, (6) applied.
/// Every value goes through ``ExpenseValidator/validate(_:id:)``, the same rules the client's ``ExpenseValidator/validate(_:)`` applies.
///
/// - Important: Call ``apply(clientId:items:to:)`` inside the store's transaction, together with every other
///   push of the same commit: the effects and the client's last consumed mutationId must be durable together.
package struct MutationRules: Sendable {
    /// The currency a create gets when it sends none.
    package let ledgerCurrency: Currency
    package let fieldsConverter: FieldsConverter

    package init(ledgerCurrency: Currency, fieldsConverter: @escaping FieldsConverter) {
        self.ledgerCurrency = ledgerCurrency
        self.fieldsConverter = fieldsConverter
    }

    /// Decides and applies each item in order; returns one result per item. Each applied change is written
    /// with its history entry (who: `author`) in the caller's transaction.
    /// - Throws: only what the store throws (the whole transaction must then be rolled back).
    package func apply(clientId: UUID, items: [PushItem], to store: some LedgerStore,
                       author: HistoryAuthor = HistoryAuthor(who: nil, time: HistoryAuthor.now())) throws -> [MutationResult] {
        try apply(clientId: clientId, prepared: items.map { PreparedItem($0) }, to: store, author: author)
    }

    /// ``apply(clientId:items:to:author:)`` of items of which some were prepared (``prepare(_:)``): the same
    /// answers and writes, with the prepared work taken instead of done again.
    package func apply(clientId: UUID, prepared items: [PreparedItem], to store: some LedgerStore,
                       author: HistoryAuthor) throws -> [MutationResult] {
        let writer = HistoryWriter(clientId: clientId, author: author)
        var last = try store.lastMutationId(clientId: clientId)
        let firstLast = last
        var results: [MutationResult] = []
        results.reserveCapacity(items.count)
        // Each item read in place, through the buffer: a copy of an item per mutation (its values, its history
        // bytes) cost the ledger's thread more than the loop's control flow does.
        try items.withUnsafeBufferPointer { items in
            for index in items.indices {
                let mutationId = items[index].mutationId
                if mutationId <= last {
                    let original = try originalOutcome(clientId: clientId, mutationId: mutationId, in: store)
                    results.append(MutationResult(mutationId: mutationId, status: .duplicate(original: original)))
                    continue
                }
                if mutationId != last + 1 {
                    let rejection = MutationRejection(
                        reason: "mutation_gap", field: nil,
                        message: "mutationId \(mutationId) skips ahead: the next expected is \(last + 1)")
                    results.append(MutationResult(mutationId: mutationId, status: .rejected(rejection)))
                    continue
                }
                last = mutationId
                let status: MutationStatus
                switch items[index].item.decoded {
                case .failure(let rejection): status = .rejected(rejection)
                case .success(let mutation): status = try decide(mutation, prepared: items[index].put, in: store, writer: writer)
                }
                if let outcome = ConsumedOutcome(status) {
                    try store.keepOutcome(outcome, clientId: clientId, mutationId: mutationId)
                }
                results.append(MutationResult(mutationId: mutationId, status: status))
            }
        }
        if last != firstLast { try store.setLastMutationId(clientId: clientId, last) }
        return results
    }

    /// What was decided when `mutationId` was consumed, as a `duplicate` answer repeats it (Protocol.md §5.2):
    /// a conflict with the record as it is now; `nil` outside the store's retention window.
    private func originalOutcome(clientId: UUID, mutationId: Int64, in store: some LedgerStore) throws -> MutationOutcome? {
        switch try store.outcome(clientId: clientId, mutationId: mutationId) {
        case nil: return nil
        case .applied(let version, let seq)?: return .applied(version: version, seq: seq)
        case .rejected(let rejection)?: return .rejected(rejection)
        case .conflict(let id)?:
            if let record = try store.record(id: id) { return .conflict(current: record.record) }
            return try store.dataRecord(id: id).map { .dataConflict(current: $0.record) }
        }
    }

    /// Steps (2) to (6) for one well-formed mutation; `prepared`, when given, is its step (3) worked out ahead.
    private func decide(_ mutation: Mutation, prepared: PreparedPut?, in store: some LedgerStore,
                        writer: HistoryWriter) throws -> MutationStatus {
        if mutation.kind != .expense { return try decideData(mutation, in: store, writer: writer) }
        let existing = try store.record(id: mutation.id)
        // A materialised occurrence (Protocol.md §10.4): whatever became of the id, that stays.
        if mutation.ifAbsent, let existing { return .applied(version: existing.version, seq: existing.seq) }
        guard let existing else {
            if try store.dataRecord(id: mutation.id) != nil {
                return .rejected(MutationRejection(reason: "invalid_id", field: "id",
                                                   message: "id \(UUIDText.lowercased(mutation.id)) belongs to a record of another kind"))
            }
            if mutation.type == .delete || mutation.baseVersion > 0 {
                return .rejected(MutationRejection(reason: "not_found", field: "id",
                                                   message: "no expense has id \(UUIDText.lowercased(mutation.id))"))
            }
            return try create(mutation, prepared: prepared, in: store, writer: writer)
        }
        if mutation.baseVersion > existing.version {
            return .rejected(MutationRejection(
                reason: "invalid_base_version", field: "baseVersion",
                message: "baseVersion \(mutation.baseVersion) is above the record's version \(existing.version)"))
        }
        switch mutation.type {
        case .delete: return try delete(mutation, existing: existing, in: store, writer: writer)
        case .put: return try put(mutation, prepared: prepared, existing: existing, in: store, writer: writer)
        }
    }

    private func create(_ mutation: Mutation, prepared: PreparedPut?, in store: some LedgerStore,
                        writer: HistoryWriter) throws -> MutationStatus {
        let expense: Expense
        switch prepared?.values ?? validateComplete(mutation) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): expense = value
        }
        if let rejection = try overflow(adding: expense, removing: nil, in: store) { return .rejected(rejection) }
        let seq = store.head + 1
        let stored = StoredRecord(record: Record(expense: expense, version: 1, seq: seq, deleted: false),
                                  fieldVersions: FieldVersions(all: 1))
        try writer.write(stored, replacing: nil, to: store, created: prepared?.creation)
        return .applied(version: 1, seq: seq)
    }

    private func delete(_ mutation: Mutation, existing: StoredRecord, in store: some LedgerStore, writer: HistoryWriter) throws -> MutationStatus {
        if existing.deleted { return .applied(version: existing.version, seq: existing.seq) }
        guard mutation.baseVersion == existing.version else { return .conflict(current: existing.record) }
        var stored = existing
        stored.record.version += 1
        stored.record.seq = store.head + 1
        stored.record.deleted = true
        try writer.write(stored, replacing: existing, to: store)
        return .applied(version: stored.version, seq: stored.seq)
    }

    private func put(_ mutation: Mutation, prepared: PreparedPut?, existing: StoredRecord, in store: some LedgerStore,
                     writer: HistoryWriter) throws -> MutationStatus {
        // PushRequest already answered a put without a fields object `invalid_mutation` (Protocol.md §5.2); a
        // prepared put left its fields behind, all five sent (or a create's, which the conflict rules do not read).
        let fields = mutation.sentFields
        // PushRequest answers a put without fields itself; refusing it here too keeps a decoder's mistake from
        // reaching anything but this mutation.
        if fields == nil && prepared == nil { return .rejected(.putWithoutFields) }
        // A create (baseVersion 0) and a restore (a tombstone at its version) send every required field;
        // an edit sends only what it changes, merged onto the stored values.
        let isRestore = existing.deleted && mutation.baseVersion == existing.version
        let isComplete = mutation.baseVersion == 0 || isRestore
        let validated: Result<Expense, MutationRejection>
        if let prepared {
            // Prepared only when these values are what either branch below validates (hasValuesOfItsOwn).
            validated = prepared.values
        } else if isComplete {
            validated = validateComplete(mutation)
        } else {
            guard let fields else { return .rejected(.putWithoutFields) }
            validated = convert(fields).flatMap { draft in
                validate(existing.expense.draft.merging(draft), id: existing.expense.id)
            }
        }
        let expense: Expense
        switch validated {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let value): expense = value
        }
        let changed = Self.changedFields(from: existing.expense, to: expense)

        // (4) conflict
        if existing.deleted {
            guard isRestore else { return .conflict(current: existing.record) }
        } else if mutation.baseVersion == 0 {
            // A create of an id that exists: harmless only when it says exactly what is stored.
            return changed.isEmpty ? .applied(version: existing.version, seq: existing.seq)
                                   : .conflict(current: existing.record)
        } else if mutation.baseVersion < existing.version {
            for field in ExpenseField.allCases where (fields?.contains(field) ?? (field != .id))
                && existing.fieldVersions[field] > mutation.baseVersion {
                if changed.contains(field) { return .conflict(current: existing.record) }
            }
        }
        if !isRestore && changed.isEmpty { return .applied(version: existing.version, seq: existing.seq) }

        // (5) overflow, (6) applied
        if let rejection = try overflow(adding: expense, removing: existing.deleted ? nil : existing.expense, in: store) {
            return .rejected(rejection)
        }
        let version = existing.version + 1
        var fieldVersions = existing.fieldVersions
        for field in changed { fieldVersions[field] = version }
        let stored = StoredRecord(record: Record(expense: expense, version: version, seq: store.head + 1, deleted: false),
                                  fieldVersions: fieldVersions)
        try writer.write(stored, replacing: existing, to: store)
        return .applied(version: version, seq: stored.seq)
    }

    /// A create's or restore's values: the sent fields, the ledger's currency when none is sent, an empty note.
    /// A mutation that is not a put with fields (PushRequest refuses those first) is refused as such.
    func validateComplete(_ mutation: Mutation) -> Result<Expense, MutationRejection> {
        guard let fields = mutation.sentFields, mutation.type == .put else { return .failure(.putWithoutFields) }
        return convert(fields).flatMap { draft in
            var complete = draft
            if complete.currency == nil { complete.currency = ledgerCurrency.code }
            if complete.note == nil { complete.note = "" }
            return validate(complete, id: mutation.id)
        }
    }

    private func convert(_ fields: MutationFields) -> Result<ExpenseDraft, MutationRejection> {
        fieldsConverter(fields).map { draft in
            var partial = draft
            partial.id = nil
            return partial
        }
    }

    /// The one validation (``ExpenseValidator/validate(_:id:)``) of the record `id`'s values.
    private func validate(_ draft: ExpenseDraft, id: UUID) -> Result<Expense, MutationRejection> {
        do {
            return .success(try ExpenseValidator.validate(draft, id: id))
        } catch let error as ValidationError {
            return .failure(MutationRejection(error))
        } catch {
            return .failure(MutationRejection(reason: "invalid_mutation", field: nil, message: "\(error)"))
        }
    }

    /// `amount_overflow` when storing `expense` (instead of `removing`, if live) would take its currency's
    /// live total past `Int64.max`; `nil` when it fits.
    private func overflow(adding expense: Expense, removing old: Expense?, in store: some LedgerStore) throws -> MutationRejection? {
        var total = try store.liveTotal(currency: expense.currency)
        if let old, old.currency == expense.currency { total -= old.amount }  // cannot overflow: the total includes it
        guard total.addingReportingOverflow(expense.amount).overflow else { return nil }
        return MutationRejection(ValidationError.amountOverflow)
    }

    private static func changedFields(from old: Expense, to new: Expense) -> Set<ExpenseField> {
        var changed: Set<ExpenseField> = []
        // Money is one value (Protocol.md §7.4): when the pair changes, both of its fields did, so a put that
        // sends either one conflicts with any change of the other.
        if old.amount != new.amount || old.currency != new.currency { changed.formUnion([.amount, .currency]) }
        if !ExactText.same(old.category, new.category) { changed.insert(.category) }
        if old.date != new.date { changed.insert(.date) }
        if !ExactText.same(old.note, new.note) { changed.insert(.note) }
        return changed
    }

}

/// Writes a change together with its history entry: the one way ``MutationRules`` changes a record.
struct HistoryWriter {
    let clientId: UUID
    let author: HistoryAuthor

    func write(_ record: StoredRecord, replacing old: StoredRecord?, to store: some LedgerStore) throws {
        try store.write(record, replacing: old)
        try store.appendHistory(HistoryEntry(from: old, to: record, clientId: clientId, author: author))
    }

    /// ``write(_:replacing:to:)`` of a create whose history changes were made ahead (`created`, for the record's
    /// expense: ``PreparedCreation``); `nil` makes them here.
    func write(_ record: StoredRecord, replacing old: StoredRecord?, to store: some LedgerStore,
               created: PreparedCreation?) throws {
        // Prepared creation bytes describe a record with no earlier version; anything else takes the general entry.
        guard let created, old == nil else { return try write(record, replacing: old, to: store) }
        try store.write(record, replacing: nil)
        try store.appendCreation(of: record, changesJSON: created.changesJSON, clientId: clientId, author: author)
    }

    /// The same for a budget, rule or setting (Protocol.md §5.8, §10): the entry in the same shape.
    func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?, to store: some LedgerStore) throws {
        try store.writeData(record, replacing: old)
        try store.appendHistory(HistoryEntry(from: old, to: record, clientId: clientId, author: author))
    }
}
