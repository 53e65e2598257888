import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Turns the `fields` object of a `put` into a partial draft: unknown keys and wrong JSON types are refused
/// with the field's own reason.
package typealias FieldsConverter = @Sendable (MutationFields) -> Result<ExpenseDraft, MutationRejection>

/// The daemon's decision for each mutation of a push: pure and synchronous, against any ``LedgerStore``.
///
/// Precedence for one mutation (Protocol.md §7.1): duplicate and gap first; then (1) malformed,
/// (2) `not_found` / `invalid_base_version`, (3) field validation, (4) conflict, (5) overflow, (6) applied.
/// Every value goes through ``ExpenseValidator/validate(_:)``, the same rules the client applies.
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

    /// Decides and applies each item in order; returns one result per item, an applied one with the record as
    /// stored (``MutationResult/record``). Each applied change is written with its history entry (who: `author`)
    /// in the caller's transaction.
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
        // Each kind's description, made once for the push (Steps (2) to (6): ``decide(_:prepared:schema:in:)``).
        let expenses = ExpenseSchema(rules: self, store: store, writer: writer)
        let data = DataSchema(store: store, writer: writer)
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
                let result: MutationResult
                switch items[index].item.decoded {
                case .failure(let rejection): result = MutationResult(mutationId: mutationId, status: .rejected(rejection))
                case .success(let mutation) where mutation.kind == .expense:
                    result = try decide(mutation, prepared: items[index].put, schema: expenses, in: store)
                case .success(let mutation):
                    result = try decide(mutation, prepared: nil, schema: data, in: store)
                }
                // The outcome is kept without the record: a `duplicate` repeats the status alone (Protocol.md §5.2).
                if let outcome = ConsumedOutcome(result.status) {
                    try store.keepOutcome(outcome, clientId: clientId, mutationId: mutationId)
                }
                results.append(consume result)
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

    /// A create's or restore's values: the sent fields, the ledger's currency when none is sent, an empty note.
    /// A mutation that is not a put with fields (PushRequest refuses those first) is refused as such.
    func validateComplete(_ mutation: Mutation) -> Result<Expense, MutationRejection> {
        guard mutation.type == .put, case .sent(let fields)? = mutation.putFields else { return .failure(.putWithoutFields) }
        // The draft is completed and given its id in place: each copy of a draft is paid per field.
        switch fieldsConverter(fields) {
        case .failure(let rejection): return .failure(rejection)
        case .success(var draft):
            draft.completeCreation(currency: ledgerCurrency)
            return validate(draft, id: mutation.id)
        }
    }

    func convert(_ fields: MutationFields) -> Result<ExpenseDraft, MutationRejection> {
        fieldsConverter(fields).map { draft in
            var partial = draft
            partial.id = nil
            return partial
        }
    }

    /// The one validation (``ExpenseValidator/validate(_:)``) of the record `id`'s values (the draft's own id,
    /// if any, is replaced: a mutation carries its id beside its fields).
    func validate(_ draft: consuming ExpenseDraft, id: UUID) -> Result<Expense, MutationRejection> {
        draft.id = .value(id)
        do {
            return .success(try ExpenseValidator.validate(draft))
        } catch let error as ValidationError {
            return .failure(MutationRejection(error))
        } catch {
            return .failure(MutationRejection(reason: "invalid_mutation", field: nil, message: "\(error)"))
        }
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

    /// ``write(_:replacing:to:)`` of a create prepared ahead (`created`, ``PreparedPut/isCreate``): its history
    /// entry is the store's ``LedgerHistoryStore/appendCreation(of:clientId:author:)``.
    func write(_ record: StoredRecord, replacing old: StoredRecord?, to store: some LedgerStore, created: Bool) throws {
        // A prepared create describes a record with no earlier version; anything else takes the general entry.
        guard created, old == nil else { return try write(record, replacing: old, to: store) }
        try store.write(record, replacing: nil)
        try store.appendCreation(of: record, clientId: clientId, author: author)
    }

    /// The same for a budget, rule or setting (Protocol.md §5.8, §10): the entry in the same shape.
    func writeData(_ record: StoredDataRecord, replacing old: StoredDataRecord?, to store: some LedgerStore) throws {
        try store.writeData(record, replacing: old)
        try store.appendHistory(HistoryEntry(from: old, to: record, clientId: clientId, author: author))
    }
}
