import ExpenseCore
import Testing

@Suite("ExpenseDraft and Expense")
struct ExpenseDraftTests {
    @Test("merging replaces exactly the fields the changes give")
    func merging() {
        let base = makeDraft()
        #expect(base.merging(ExpenseDraft()) == base)
        let changed = base.merging(ExpenseDraft(amount: 99, note: "new"))
        #expect(changed.amount == 99)
        #expect(changed.note == "new")
        #expect(changed.id == base.id && changed.currency == base.currency && changed.category == base.category)
        #expect(changed.date == base.date)
        // An empty note is a change (clearing the note), not "not given".
        #expect(base.merging(ExpenseDraft(note: "")).note == "")
    }

    @Test("an expense's draft validates back to the same expense, byte for byte")
    func draftRoundTrip() throws {
        let expense = try ExpenseValidator.validate(makeDraft(
            id: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", amount: 1, currency: "BHD", category: " cafe\u{301} ",
            date: "2024-02-29", note: "x\ty\n"))
        let again = try ExpenseValidator.validate(expense.draft)
        #expect(again == expense)
        #expect(Array(again.category.utf8) == Array("cafe\u{301}".utf8))
        #expect(expense.draft.id == "6ba7b810-9dad-11d1-80b4-00c04fd430c8")
        #expect(expense.draft.currency == "BHD")
        #expect(expense.draft.date == "2024-02-29")
    }
}
