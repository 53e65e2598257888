import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// Everything one ledger is, as `expensed migrate` moves it between storages (docs/deploy.md, "Moving a
/// ledger"): identity, the exact seqs of records and tombstones, data kinds, history, every client's last
/// consumed mutationId and kept outcomes, tokens (hashes only), the purge horizon and the live totals.
///
/// Read by a ``LedgerSnapshotSource`` in one consistent read and installed by a ``LedgerSnapshotTarget`` in
/// one transaction, so a target ledger is the whole source ledger or nothing.
package struct LedgerSnapshot: Hashable, Sendable {
    /// A kept outcome of one client's consumed mutation (Protocol.md §7.6).
    package struct KeptOutcome: Hashable, Sendable {
        package var clientId: UUID
        package var mutationId: Int64
        package var outcome: ConsumedOutcome

        package init(clientId: UUID, mutationId: Int64, outcome: ConsumedOutcome) {
            self.clientId = clientId
            self.mutationId = mutationId
            self.outcome = outcome
        }
    }

    package var name: String
    package var currency: Currency
    package var identity: LedgerIdentity
    /// The highest seq given (the next change takes `head + 1`).
    package var head: Int64
    package var horizon: Int64
    /// When the history began: changes at or below `historyStartSeq` count as made at `historyStartTime`.
    package var historyStartSeq: Int64
    package var historyStartTime: Int64
    /// Every expense record, tombstones included, in seq order.
    package var records: [StoredRecord]
    /// Every budget, rule and setting, tombstones included, in seq order.
    package var dataRecords: [StoredDataRecord]
    /// Every history entry kept, in seq order.
    package var history: [HistoryEntry]
    /// Each client's last consumed mutationId.
    package var clients: [UUID: Int64]
    /// The kept outcomes, sorted by client (its text form) and mutationId.
    package var outcomes: [KeptOutcome]
    /// The tokens, sorted by name.
    package var tokens: [StoredToken]
    /// The live total per currency as the storage's aggregates hold it.
    package var totals: [Currency: Int64]

    /// The live totals recomputed from ``records``: what a target's aggregates must hold. `nil` when a sum
    /// overflows (which the rules never let happen).
    package var recomputedTotals: [Currency: Int64]? {
        var totals: [Currency: Int64] = [:]
        for stored in records where !stored.deleted {
            let sum = (totals[stored.expense.currency] ?? 0).addingReportingOverflow(stored.expense.amount)
            guard !sum.overflow else { return nil }
            totals[stored.expense.currency] = sum.partialValue
        }
        return totals
    }

    /// Puts ``outcomes`` and ``tokens`` in their canonical order (so two reads of one ledger compare equal).
    package mutating func sort() {
        outcomes.sort { (UUIDText.lowercased($0.clientId), $0.mutationId) < (UUIDText.lowercased($1.clientId), $1.mutationId) }
        tokens.sort { $0.name < $1.name }
        records.sort { $0.seq < $1.seq }
        dataRecords.sort { $0.seq < $1.seq }
        history.sort { $0.seq < $1.seq }
    }
}

/// The read side of a migration: a storage ledgers are copied from.
package protocol LedgerSnapshotSource: AnyObject {
    /// The names of its ledgers, sorted.
    func ledgerNames() throws -> [String]
    /// The whole ledger `name`, read consistently (one read transaction).
    /// - Throws: ``LedgerError/unknownLedger(_:)``, or a storage error.
    func snapshot(ledger name: String) throws -> LedgerSnapshot
}

/// The write side of a migration: a storage ledgers are copied to. Also a ``LedgerSnapshotSource``, so the
/// copy is read back and compared.
package protocol LedgerSnapshotTarget: LedgerSnapshotSource {
    /// Creates the ledger `snapshot.name` holding exactly `snapshot`, atomically: all of it or nothing.
    /// - Throws: ``LedgerError/ledgerExists(_:)`` when the storage has a ledger of that name, or a storage error.
    func install(_ snapshot: LedgerSnapshot) throws
}
