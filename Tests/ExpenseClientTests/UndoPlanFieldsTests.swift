import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// Undoing a daemon history edit puts back every field it changed, whichever fields those are: the history's
/// values are read back into a draft through the one declaration of the fields (``ExpenseFields``), not by
/// naming each field here.
@Suite struct UndoPlanFieldsTests {
    private let before = Expense(id: UUID(), amount: 1250, currency: .usd, category: "food",
                                 date: CalendarDay(year: 2026, month: 3, day: 1)!, note: "lunch")

    @Test func everyConflictGroupsHistoryValueReadsBackIntoADraft() throws {
        for group in ExpenseField.conflictGroups {
            var draft = ExpenseDraft()
            let value = ExpenseFields.historyValue(of: group, in: before)
            #expect(ExpenseFields.set(historyValue: value, named: group.conflictGroupName, in: &draft), "\(group)")
            for field in group.conflictGroup { #expect(field.matches(draft, before) == true, "\(field)") }
        }
        var draft = ExpenseDraft()
        #expect(!ExpenseFields.set(historyValue: .text("x"), named: "payee", in: &draft))
        #expect(!ExpenseFields.set(historyValue: .text("x"), named: "money", in: &draft))
        #expect(draft == ExpenseDraft())
    }

    @Test func undoingAnEditOfEveryFieldPutsEachBack() throws {
        let payer = UUID()
        let after = Expense(id: before.id, amount: 990, currency: try #require(Currency(code: "EUR")), category: "home",
                            date: CalendarDay(year: 2026, month: 4, day: 2)!, note: "dinner", paidBy: payer,
                            split: try SplitSpec(method: .equal, parts: [SplitSpec.Part(member: payer, weight: 1)]), tags: ["trip", "work"],
                            source: "REWE SAGT DANKE")
        let entry = HistoryEntry(seq: 2, id: before.id, version: 2, action: .edit,
                                 changes: HistoryEntry.changes(from: before, to: after), who: nil, clientId: UUID(), time: 0)
        #expect(entry.changes.map(\.field) == HistoryEntry.fieldNames)
        let plan = try #require(UndoPlan(reverting: entry, tombstone: nil))
        var back = after.draft.merging(plan.fields)
        back.id = .value(before.id)
        #expect(try ExpenseValidator.validate(back) == before)
    }
}
