import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// What the rules can work out for a push before the ledger's state is at hand (``PreparedItem``): the thread
/// that decoded the push does it, so the ledger's one thread only decides and writes.
extension MutationRules {
    /// `items`, each put whose values are its own (``hasValuesOfItsOwn(_:)``) validated now, and a valid create
    /// marked as one. Pure: reads nothing but the items, the ledger's currency and the converter,
    /// so it may run on any thread.
    ///
    /// A prepared put leaves its `fields` behind (``Mutation/putFields`` is `.prepared`), so the ledger's thread neither
    /// copies nor frees them: its values are validated, and the only other use of them, which fields were sent
    /// (the conflict rule of Protocol.md §7.4), is known: every one (a create's are not read).
    package func prepare(_ items: [PushItem]) -> [PreparedItem] {
        // One pass, each item written once into the result: every copy of a put (its fields, its draft, its
        // values) is paid per field of the kind, whether the put uses the field or not, and a 500-mutation push
        // made ~40 of them per mutation when the items were built in a second pass.
        var prepared: [PreparedItem] = []
        prepared.reserveCapacity(items.count)
        items.withUnsafeBufferPointer { items in
            for index in items.indices {
                // The element's payload is read where it is: a copy of a whole `PushItem` (its fields' values) per
                // mutation cost a 500-mutation push ~430 instructions each.
                guard case .success(let mutation) = items[index].decoded, Self.hasValuesOfItsOwn(mutation) else {
                    prepared.append(PreparedItem(items[index]))
                    continue
                }
                let validated = validateComplete(mutation)
                // Only a create (baseVersion 0) is recorded as one; any other put that meets no record is
                // `not_found` before its values are looked at.
                var isCreate = false
                if mutation.baseVersion == 0, case .success = validated { isCreate = true }
                // The fields stay behind (`.prepared`): the ledger's thread neither copies nor frees them.
                prepared.append(PreparedItem(PushItem(mutationId: items[index].mutationId, decoded: .success(mutation.prepared)),
                                             put: PreparedPut(values: validated, isCreate: isCreate)))
            }
        }
        return prepared
    }

    /// Whether step (3) of an expense's put validates the same values whatever record it meets, so they can be
    /// validated before (``validateComplete(_:)``, what the one `decide` would run, ``ExpenseSchema``):
    /// - a create (baseVersion 0) is always validated so, whether or not the id exists;
    /// - any other put sending every field is too: an edit's merge onto the stored values replaces every one
    ///   of them, and a restore's defaults (the ledger's currency, the empty note) fill nothing.
    /// A put that leaves out a field takes it from the record (an edit) or from the defaults (a restore): not
    /// its own. A budget, rule or setting is never prepared.
    static func hasValuesOfItsOwn(_ mutation: Mutation) -> Bool {
        guard mutation.kind == .expense, mutation.type == .put, case .sent(let fields)? = mutation.putFields else { return false }
        return mutation.baseVersion == 0 || fields.containsEveryField
    }
}
