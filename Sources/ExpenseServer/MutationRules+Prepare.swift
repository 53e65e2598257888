import ExpenseCore
import ExpenseProtocol
import Foundation

/// What the rules can work out for a push before the ledger's state is at hand (``PreparedItem``): the thread
/// that decoded the push does it, so the ledger's one thread only decides and writes.
extension MutationRules {
    /// `items`, each put whose values are its own (``hasValuesOfItsOwn(_:)``) validated now, and a valid create's
    /// history changes written. Pure: reads nothing but the items, the ledger's currency and the converter,
    /// so it may run on any thread.
    ///
    /// A prepared put leaves its `fields` behind (``Mutation/putFields`` is `.prepared`), so the ledger's thread neither
    /// copies nor frees them: its values are validated, and the only other use of them, which fields were sent
    /// (the conflict rule of Protocol.md §7.4), is known: every one (a create's are not read).
    package func prepare(_ items: [PushItem]) -> [PreparedItem] {
        // First every put's values, each create's history changes appended to one buffer; then the items, each
        // create with its slice of the buffer once it is complete.
        var values: [Result<Expense, MutationRejection>?] = []
        values.reserveCapacity(items.count)
        var creations: [Range<Int>?] = Array(repeating: nil, count: items.count)
        var changes = JSONWriter(capacity: items.count * 112)  // about one create's changes each
        for index in items.indices {
            // The element's payload is read where it is: a copy of a whole `PushItem` (its fields' values) per
            // mutation cost a 500-mutation push ~430 instructions each.
            guard case .success(let mutation) = items[index].decoded, Self.hasValuesOfItsOwn(mutation) else {
                values.append(nil)
                continue
            }
            let validated = validateComplete(mutation)
            values.append(validated)
            // Only a create (baseVersion 0) may write a create's history; any other put that meets no record
            // is `not_found` before its values are looked at.
            if mutation.baseVersion == 0, case .success(let expense) = validated {
                let start = changes.bytes.count
                if writesCreationChanges { HistoryEntry.writeCreationChanges(of: expense, to: &changes) }
                creations[index] = start..<changes.bytes.count
            }
        }
        let buffer = changes.bytes
        return items.indices.map { index in
            guard let validated = values[index], case .success(var mutation) = items[index].decoded else {
                return PreparedItem(items[index])
            }
            mutation.putFields = .prepared
            let put = PreparedPut(values: validated, creation: creations[index].map { PreparedCreation(changesJSON: buffer[$0]) })
            return PreparedItem(PushItem(mutationId: items[index].mutationId, decoded: .success(mutation)), put: put)
        }
    }

    /// Whether step (3) of an expense's put validates the same values whatever record it meets, so they can be
    /// validated before (``validateComplete(_:)``, what the one `decide` would run, ``ExpenseSchema``):
    /// - a create (baseVersion 0) is always validated so, whether or not the id exists;
    /// - any other put sending every field is too: an edit's merge onto the stored values replaces every one
    ///   of them, and a restore's defaults (the ledger's currency, the empty note) fill nothing.
    /// A put that leaves out a field takes it from the record (an edit) or from the defaults (a restore): not
    /// its own. A budget, rule or setting is never prepared.
    static func hasValuesOfItsOwn(_ mutation: Mutation) -> Bool {
        guard mutation.kind == .expense, mutation.type == .put, let fields = mutation.sentFields else { return false }
        return mutation.baseVersion == 0 || fields.containsEveryField
    }
}
