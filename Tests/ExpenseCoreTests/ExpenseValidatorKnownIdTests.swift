import Foundation
import Testing
import ExpenseCore

/// `ExpenseValidator.validate(_:id:)` (the daemon's: the id already a UUID) against `validate(_:)` with the same
/// id as text: the same expense or the same error, for every field's failures.
@Suite struct ExpenseValidatorKnownIdTests {
    private static func outcome(_ body: () throws -> Expense) -> Result<Expense, ValidationError> {
        do { return .success(try body()) } catch let error as ValidationError { return .failure(error) } catch {
            Issue.record("unexpected \(error)")
            return .failure(.missingField(.id))
        }
    }

    @Test func everyDraftValidatesAsWithItsIdAsText() {
        let id = UUID()
        let good = ExpenseDraft(amount: 1250, currency: "USD", category: "food", date: "2026-11-30", note: "lunch")
        var drafts = [good]
        for amount in [nil, 0, -5, 9_007_199_254_740_992, 1] as [Int64?] { var draft = good; draft.amount = amount; drafts.append(draft) }
        for currency in [nil, "usd", "XXX", "EUR", ""] as [String?] { var draft = good; draft.currency = currency; drafts.append(draft) }
        for category in [nil, "", "  ", " food ", "a\u{7}b", String(repeating: "c", count: 65), "cafe\u{301}",
                         String(repeating: "é", count: 64)] as [String?] {
            var draft = good; draft.category = category; drafts.append(draft)
        }
        for date in [nil, "2026-02-30", "1899-12-31", "2026-1-5", "x"] as [String?] { var draft = good; draft.date = date; drafts.append(draft) }
        for note in [nil, "", "a\tb\nc", "bell\u{7}", String(repeating: "n", count: 301), String(repeating: "€", count: 300),
                     String(repeating: "n", count: 300)] as [String?] {
            var draft = good; draft.note = note; drafts.append(draft)
        }
        for draft in drafts {
            var withText = draft
            withText.id = id.uuidString
            var unrelatedText = draft
            unrelatedText.id = "not an id: never read"
            let expected = Self.outcome { try ExpenseValidator.validate(withText) }
            #expect(Self.outcome { try ExpenseValidator.validate(draft, id: id) } == expected, "\(draft)")
            #expect(Self.outcome { try ExpenseValidator.validate(unrelatedText, id: id) } == expected, "\(draft)")
            // The currency and the date already read as values (a pull page's): the same, whatever their text.
            if let code = draft.currency, let currency = Currency(code: code), let text = draft.date,
               let date = CalendarDay(text) {
                var unrelated = draft
                unrelated.currency = "not a currency: never read"
                unrelated.date = "never read"
                #expect(Self.outcome { try ExpenseValidator.validate(unrelated, id: id, currency: currency, date: date) }
                        == expected, "\(draft)")
            }
        }
    }
}
