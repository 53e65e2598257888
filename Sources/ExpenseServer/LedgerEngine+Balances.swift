import ExpenseCore
import ExpenseProtocol

extension LedgerEngine {
    /// `balances` (Protocol.md §5.11): per member and currency, from the ledger's own shared expenses and transfers
    /// (``LedgerStore/records(_:)``, one state of the ledger), through the core's ``ExpenseCore/Balances``, the
    /// same function a client runs over its local copy. With `currency`, only that currency's records are read
    /// into the figures, so another currency's never change them.
    ///
    /// Reads every shared expense and transfer on the ledger's thread, O(shared records) however few members a
    /// ledger has, where `summary` reads aggregates: about 230 ms for a ledger of 200,000 expenses of which 20,000
    /// are shared (release build, SQLite; most of it reading each split's text), during which that ledger's pushes
    /// wait. Kept per currency and member as the records change, it would be O(members); not worth it at the size
    /// of a household.
    /// - Throws: ``LedgerError/storage(_:)``; a member's total that does not fit in 64 bits is −32603 with reason
    ///   `amount_overflow` (the core's code, as `stats` answers an overflow), never a wrong number.
    package func balances(currency: Currency?) throws -> BalancesResult {
        let records: SelectedRecords
        do {
            records = try store.records(.balances)
        } catch {
            throw LedgerError.storage(error)
        }
        do throws(SplitError) {
            return BalancesResult(try records.balances(in: currency), currency: currency, cursor: records.head)
        } catch {
            // Transfers are not in the overflow check of Protocol.md §7.5, so 1025 of the largest amount from one
            // member overflow what they paid; any other SplitError means a record changed behind the daemon's back.
            // Said, never a wrong number.
            throw RPCError(code: RPCError.internalErrorCode, message: error.message, reason: error.code)
        }
    }
}
