import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// One entry of a push, with the work done for it before the ledger decides it (``MutationRules/prepare(_:)``):
/// what the ledger's thread would otherwise compute from the mutation alone, never from the ledger's state.
///
/// The network front prepares a push on the loop thread that decoded it, before handing it to the ledger
/// (``Ledger/push(clientId:items:credential:completion:)``): the ledger's one thread bounds the push figures
/// (85–100 % busy under the bench, the loop thread 11–30 %), so it only decides and writes.
package struct PreparedItem: Sendable {
    package var item: PushItem
    /// The put's values validated ahead; `nil`: nothing prepared, the rules work everything out themselves (the
    /// general path, which a prepared item must answer exactly as).
    package var put: PreparedPut?

    package init(_ item: PushItem, put: PreparedPut? = nil) {
        self.item = item
        self.put = put
    }

    package var mutationId: Int64 { item.mutationId }
}

/// Step (3) of Protocol.md §7.1 worked out ahead for a put whose values do not depend on the record it meets
/// (``MutationRules/hasValuesOfItsOwn(_:)``): what ``MutationRules`` would validate when it reaches that step,
/// and whether it is a create with valid values.
///
/// - Important: Only the rules make one (``MutationRules/prepare(_:)``), with the one validation they use at step
///   (3), so a prepared put is answered exactly as an unprepared one; and they read it only where step (3)
///   would validate: a prepared rejection is reported where that step would report it, never earlier.
package struct PreparedPut: Sendable {
    /// The expense the put's fields make (the ledger's currency when none is sent, the empty note), or why they
    /// are refused.
    package let values: Result<Expense, MutationRejection>
    /// Whether it is a create (base version 0) with valid values, whose history entry the store records as it
    /// writes the record (``LedgerHistoryStore/appendCreation(of:clientId:author:)``).
    package let isCreate: Bool
}
