import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

extension ExpenseRunner {
    /// `expense discard ID… | --rejected`: drops local pending changes (nothing is sent; the server's copy is
    /// untouched). Prints each record's id; says on standard error what was dropped and what is shown now.
    func discard() throws {
        let prefixes = command.words(ExpenseArguments.id)
        let rejected = command[ExpenseOptions.rejected]
        guard prefixes.isEmpty == rejected else { throw usage("Give the ids of the changes to discard, or --rejected") }
        let ledger = try ledger()
        let dropped = rejected ? try ledger.discardRejected() : try ledger.discard(prefixes)
        if rejected, dropped.isEmpty { console.err("No rejected change.") }
        for change in dropped { report(change) }
    }

    /// `resolve ID --theirs` for an expense whose change the daemon rejected: the rejected change is dropped.
    func resolveRejection(_ prefix: String, _ ledger: LocalLedger) throws {
        report(try ledger.discard(prefix, onlyRejected: true))
    }

    private func report(_ change: DiscardedChange) {
        let id = UUIDText.lowercased(change.id)
        console.out(id + "\n")
        guard change.kind == .expense else { return reportData(change) }
        for entry in change.entries {
            let what = entry.type == .delete ? "deleted" : (entry.baseVersion == 0 ? "new" : "modified")
            var line = "Discarded \(what) \(id.prefix(8))"
            if entry.type == .put, let before = change.before?.expense {
                line += " \(before.date) \(Money.format(before.amount, currency: before.currency, includeCode: true)) "
                    + ExpenseTable.oneLine(before.category, width: 30)
            }
            if let rejection = entry.rejection { line += " (rejected: \(rejection.reason))" }
            console.err(line + ".")
        }
        if change.conflict != nil { console.err("Discarded my side of the conflict on \(id.prefix(8)).") }
        if let after = change.after, !after.deleted {
            let expense = after.expense
            console.err("Now shown as the server has it: \(expense.date) "
                        + "\(Money.format(expense.amount, currency: expense.currency, includeCode: true)) "
                        + ExpenseTable.oneLine(expense.category, width: 30) + ".")
        } else {
            console.err("The daemon never had it: it is gone.")
        }
    }

    /// ``report(_:)`` for a budget, rule or setting: its kind and id, the fields an edit changed (as `status`
    /// names them), and what is shown now.
    private func reportData(_ change: DiscardedChange) {
        let named = "\(change.kind.rawValue) \(UUIDText.lowercased(change.id).prefix(8))"
        for entry in change.entries {
            let what = entry.type == .delete ? "deleted" : (entry.baseVersion == 0 ? "new" : "modified")
            var line = "Discarded \(what) \(named)"
            if entry.type == .put, entry.baseVersion > 0 { line += " (\(entry.data.keys.sorted().joined(separator: ", ")))" }
            if let rejection = entry.rejection { line += " (rejected: \(rejection.reason))" }
            console.err(line + ".")
        }
        if change.dataAwaitsSync {
            // The copy here was carried over when this cache was upgraded, from values that held the change.
            console.err("This cache has not synced since it was upgraded: \(named) shows the daemon's values after the next `expense sync`.")
            return
        }
        switch change.dataAfter {
        case nil: console.err("The daemon never had it: it is gone.")
        case let shown? where shown.deleted: console.err("Now shown as the server has it: \(named), removed.")
        case .some: console.err("Now shown as the server has it: \(named).")
        }
    }
}
