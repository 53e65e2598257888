import ExpenseCore
import ExpenseProtocol
import Foundation

/// A local change the daemon refused because the expense changed on the server since the change was made
/// (same field edited on both sides, or edit versus delete). Both sides are kept until the person resolves it.
package struct Conflict: Hashable, Sendable {
    /// The expense.
    package var id: UUID
    /// What this client tried: `put` (with only the fields it changed) or `delete`.
    package var mine: MutationType
    /// The server version the local change was based on.
    package var mineBaseVersion: Int64
    /// The fields this client set (empty for a delete).
    package var mineFields: ExpenseDraft
    /// The server's record when the conflict was found (a tombstone when it was deleted there).
    package var theirs: Record

    package init(id: UUID, mine: MutationType, mineBaseVersion: Int64, mineFields: ExpenseDraft, theirs: Record) {
        self.id = id
        self.mine = mine
        self.mineBaseVersion = mineBaseVersion
        self.mineFields = mineFields
        self.theirs = theirs
    }

    /// Which side edited and which deleted.
    package enum Kind: Hashable, Sendable {
        /// The same field changed here and there.
        case editedOnBothSides
        /// Edited here (a `put`), deleted on the server by someone else.
        case editedHereDeletedThere
        /// Deleted here, edited on the server by someone else.
        case deletedHereEditedThere
        /// Deleted here and on the server: nothing left to settle (a pull closes such a conflict).
        case deletedOnBothSides

        /// How `expense status` and `expense conflicts` name it.
        package var label: String {
            switch self {
            case .editedOnBothSides: "edited on both sides"
            case .editedHereDeletedThere: "edited here, deleted there"
            case .deletedHereEditedThere: "deleted here, edited there"
            case .deletedOnBothSides: "deleted on both sides"
            }
        }
    }

    /// Which side edited and which deleted: `mine` is always this client's newest intent for the expense, so a
    /// delete made here is never labelled as the other side's.
    package var kind: Kind {
        switch (mine, theirs.deleted) {
        case (.put, false): .editedOnBothSides
        case (.put, true): .editedHereDeletedThere
        case (.delete, false): .deletedHereEditedThere
        case (.delete, true): .deletedOnBothSides
        }
    }

    /// The fields where the two sides differ: `(field, mine, theirs)`, values as text, members by id; for edit
    /// versus delete a `deleted` line comes first.
    package var differences: [(field: String, mine: String, theirs: String)] { differences(names: { UUIDText.lowercased($0) }) }

    /// ``differences``, members named by `names`, an amount charged in `ledgerCurrency` when it is given
    /// (``ExpenseCore/ExpenseField/text(of:names:ledgerCurrency:)``).
    package func differences(names: (UUID) -> String, ledgerCurrency: Currency? = nil) -> [(field: String, mine: String, theirs: String)] {
        var lines: [(String, String, String)] = []
        let expense = theirs.expense
        switch kind {
        case .deletedHereEditedThere: lines.append(("deleted", "yes", "no (edited)"))
        case .editedHereDeletedThere: lines.append(("deleted", "no (edited)", "yes"))
        case .editedOnBothSides, .deletedOnBothSides: break
        }
        // Each conflict group this side changed, both values read whole (money with its code, so a change of
        // currency alone shows too). Mine are the fields sent over theirs; fields that no longer validate show
        // as they were typed.
        let mineExpense = try? ExpenseValidator.validate(expense.draft.merging(mineFields))
        for group in ExpenseField.conflictGroups {
            let sent = ExpenseFields.all.filter { group.conflictGroup.contains($0.field) }.compactMap { $0.write(mineFields) }
            guard !sent.isEmpty else { continue }
            let mine = mineExpense.map { group.text(of: $0, names: names, ledgerCurrency: ledgerCurrency) }
                ?? sent.map { $0.stringValue ?? $0.jsonText }.joined(separator: " ")
            lines.append((group.rawValue, mine, group.text(of: expense, names: names, ledgerCurrency: ledgerCurrency)))
        }
        return lines
    }
}
