import ExpenseCore
import Foundation

/// What an import did (or, in a dry run, would do) with each row of a file.
package struct ImportOutcome: Sendable {
    /// Rows whose id this cache does not hold: stored, each with a queued creation.
    package var new: [ImportRow] = []
    /// Rows whose id is stored with exactly these values: nothing to do.
    package var present: [ImportRow] = []
    /// Rows whose id is stored with other values (or deleted here): not imported, only reported.
    package var differing: [(row: ImportRow, stored: LocalRecord)] = []

    /// `N new, M already present, K differing`.
    package var counts: String { "\(new.count) new, \(present.count) already present, \(differing.count) differing" }
}

extension LocalLedger {
    /// Imports `rows` in one transaction: a row whose id is new is stored with a queued creation; a row whose
    /// id is already stored is never written over — it is a no-op when the values are identical (byte for
    /// byte) and a reported difference when not. With `dryRun` nothing is written. The rows created are one
    /// journal entry (`expense undo --last` undoes them together, ``undoImport(at:)``).
    ///
    /// A deleted expense (deleted here or on the daemon, or a discarded creation) counts as differing: an
    /// import never undoes a delete, so a row deleted as unwanted stays deleted however often its file is
    /// imported again.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` when the new rows would take a currency's live
    ///   total past `Int64.max` (nothing is stored), ``StoreError``.
    @discardableResult
    package func importRows(_ rows: [ImportRow], dryRun: Bool = false) throws -> ImportOutcome {
        if !dryRun { try ensureWritable() }
        return try store.write { transaction in
            var outcome = ImportOutcome()
            for row in rows {
                guard let stored = try transaction.record(id: row.expense.id) else { outcome.new.append(row); continue }
                if stored.deleted {
                    outcome.differing.append((row, stored))
                } else if Self.sameValues(stored.expense, row.expense) {
                    outcome.present.append(row)
                } else {
                    outcome.differing.append((row, stored))
                }
            }
            if !dryRun {
                let created = outcome.new.map(\.expense)
                try insert(created, in: transaction)
                try journalImport(created, in: transaction)
            }
            return outcome
        }
    }

    /// Whether a stored expense and a row hold the same values, text compared byte for byte (as the daemon
    /// compares them). A stored expense without an original text (imported before expenses kept one) is the same
    /// as a row with one: the file did not change, only what an import keeps of it.
    static func sameValues(_ stored: Expense, _ row: Expense) -> Bool {
        ExpenseField.values.allSatisfy { $0.same(stored, row) || ($0 == .source && stored.source.isEmpty) }
    }
}
