import ExpenseCore
import ExpenseProtocol
import Foundation

/// What an `applied` answer does to the server copy of the record it changed.
extension LocalLedger {
    /// The daemon applied `entry` at `version` and `seq`: its record becomes the server copy.
    ///
    /// `record`, the record as the daemon stored it (an answer's `record`, Protocol.md §5.2), is that copy: kept as
    /// a pulled record is (``storeServerRecord(_:in:)``; it was read through the same validation), so what the
    /// daemon merged or normalised — another client's change of another field, a trimmed category, an
    /// occurrence left as it was — is known before any pull. Without one (a daemon that does not send it, a
    /// `duplicate`'s original outcome, a record that is not `entry`'s), the copy is worked out by replaying
    /// `entry` onto the copy held, and the pull brings the daemon's record itself. The caller refreshes the view.
    func storeApplied(_ entry: PendingMutation, version: Int64, seq: Int64, record: AppliedRecord?,
                      in transaction: any StoreTransaction) throws {
        switch record {
        case .expense(let record)? where entry.kind == .expense && record.expense.id == entry.id:
            _ = try storeServerRecord(record, in: transaction)
        case .data(let record)? where record.kind == entry.kind && record.id == entry.id:
            let tables = try dataTables(transaction)
            _ = try storeServerRecord(record, over: try tables.dataServerCopy(id: record.id), in: tables)
        case _ where entry.kind != .expense:
            try storeReplayedData(entry, version: version, seq: seq, in: transaction)
        default:
            try storeReplayed(entry, version: version, seq: seq, in: transaction)
        }
    }

    /// An expense's ``storeApplied(_:version:seq:record:in:)`` without the daemon's record: the copy held with
    /// `entry` on top, kept when it validates, unless the copy held is newer.
    private func storeReplayed(_ entry: PendingMutation, version: Int64, seq: Int64, in transaction: any StoreTransaction) throws {
        let copy = try transaction.serverCopy(id: entry.id)
        // An occurrence's create applied to a record the daemon already held left it as it was: the copy held (or
        // the pull) is that record, not the create's fields.
        let leftAsItWas = entry.ifAbsent && (copy != nil || version > 1)
        guard (copy?.version ?? 0) <= version, !leftAsItWas else { return }
        var draft = copy?.expense.draft ?? ExpenseDraft(id: .value(entry.id), currency: nil, date: nil)
        if entry.type == .put { draft = draft.merging(entry.fields) }
        guard let expense = try? ExpenseValidator.validateStored(draft) else { return }
        try transaction.putServerCopy(Record(expense: expense, version: version, seq: max(seq, copy?.seq ?? 0),
                                             deleted: entry.type == .delete))
    }
}
