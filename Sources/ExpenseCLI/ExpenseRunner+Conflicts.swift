import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense conflicts` and `expense resolve`: listing and settling expense conflicts (budgets, rules and
/// settings: `ExpenseRunner+DataConflicts.swift`).
extension ExpenseRunner {
    /// `expense conflicts [--json]`.
    func listConflicts() throws {
        let reading = try ledger(readOnly: true)
        let conflicts = try reading.store.conflicts()
        let dataConflicts = try dataConflicts(reading)  // budgets, rules, settings: after the expenses
        if command[ExpenseOptions.json] {
            let body = conflicts.map { conflict -> JSONValue in
                // Each side's fields as the wire writes them: this machine's with what it was, the daemon's
                // record whole.
                var mine = ExpenseFields.json(from: conflict.mineFields)
                mine["type"] = .string(conflict.mine.rawValue)
                mine["baseVersion"] = .int(conflict.mineBaseVersion)
                var theirs = ExpenseFields.json(from: conflict.theirs.expense.draft)
                theirs["version"] = .int(conflict.theirs.version)
                theirs["deleted"] = .bool(conflict.theirs.deleted)
                return .object(["id": .string(UUIDText.lowercased(conflict.id)), "kind": .string(conflictKind(conflict)),
                                "mine": .object(mine), "theirs": .object(theirs)])
            }
            console.out(JSONWriter.prettyText(.array(body + dataConflictJSON(dataConflicts))))
            return
        }
        let twinLines = twinStatusLines(reading)
        guard !conflicts.isEmpty || !dataConflicts.isEmpty || !twinLines.isEmpty else {
            console.err("No conflicts.")
            return
        }
        var text = ""
        let members = conflicts.isEmpty ? MemberDirectory(members: []) : MemberDirectory(members: try memberNames(reading).members)
        for conflict in conflicts {
            text += "\(UUIDText.lowercased(conflict.id))  \(conflictKind(conflict))\n"
            text += "  FIELD     MINE                           THEIRS\n"
            for line in conflict.differences(names: members.name, ledgerCurrency: try? reading.ledgerCurrency()) {
                text += "  " + line.field.padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                    + TerminalWidth.padded(ExpenseTable.oneLine(line.mine, width: 30), to: 30) + " "
                    + ExpenseTable.oneLine(line.theirs, width: 30) + "\n"
            }
        }
        text += dataConflictText(dataConflicts, money: moneyDisplay(reading))
        if !twinLines.isEmpty {
            text += "Possible twin recurring rules (settle with `expense recurring keep-both ID ID` or `expense recurring merge KEEP OTHER`):\n"
                + twinLines.joined(separator: "\n") + "\n"
        }
        console.out(text)
    }

    /// `expense resolve ID --mine | --theirs | --edit [--amount …]`.
    func resolve() throws {
        let sides = ExpenseOptions.ResolveSide.allCases.filter { command[$0.flag] }
        guard sides.count == 1, let side = sides.first else { throw usage("Give exactly one of --mine, --theirs, --edit") }
        let given = ExpenseFieldOptions.given(in: command)
        if side != .edit, !given.isEmpty { throw usage("--\(given[0]) needs --edit") }
        let ledger = try ledger()
        if try resolveDataConflict(command[ExpenseArguments.id] ?? "", side: side, in: ledger) { return }
        let conflict: Conflict
        do {
            conflict = try ledger.conflict(command[ExpenseArguments.id] ?? "")
        } catch StoreError.noConflict(let prefix) where side == .theirs {
            // A change the daemon rejected is settled like a conflict: --theirs drops it (`expense discard`).
            do {
                try resolveRejection(prefix, ledger)
            } catch DiscardError.nothingPending {
                throw StoreError.noConflict(prefix)
            }
            return
        }
        let resolution: Resolution
        switch side {
        case .mine: resolution = .mine
        case .theirs: resolution = .theirs
        case .edit:
            guard !given.isEmpty else { throw usage("--edit needs at least one of " + ExpenseFieldOptions.listed) }
            let ledgerCurrency = try ledger.ledgerCurrency()
            let changes = try ExpenseFieldOptions.changes(command, currentCurrency: conflict.theirs.expense.currency,
                                                          members: memberNames(ledger), ledgerCurrency: ledgerCurrency)
            try ExpenseFieldOptions.checkCharged(conflict.theirs.expense.draft.merging(changes), changes: changes,
                                                 ledgerCurrency: ledgerCurrency)
            try ExpenseFieldOptions.checkParts(of: conflict.theirs.expense, changes: changes)
            resolution = .edit(changes)
        }
        try ledger.resolve(conflict, resolution)
        console.out(UUIDText.lowercased(conflict.id) + "\n")
        console.err("Resolved (\(side.rawValue)); run `expense sync` to send it.")
    }

    /// How a conflict is named in `status` and `conflicts` (``Conflict/Kind/label``).
    func conflictKind(_ conflict: Conflict) -> String { conflict.kind.label }
}
