import Foundation
import Testing
import ExpenseCore

/// A draft whose id, currency and date are values (a stored expense's, or read by a decoder) against the same
/// draft with them as text: the same expense or the same error, for every field's failures, so giving a value
/// never changes which error wins.
@Suite struct DraftInputValidationTests {
    private static func outcome(_ body: () throws -> Expense) -> Result<Expense, ValidationError> {
        do { return .success(try body()) } catch let error as ValidationError { return .failure(error) } catch {
            Issue.record("unexpected \(error)")
            return .failure(.missingField(.id))
        }
    }

    @Test func everyDraftValidatesAsWithItsValuesAsText() {
        let id = UUID()
        let good = ExpenseDraft(amount: 1250, currency: "USD", category: "food", date: "2026-11-30", note: "lunch")
        var drafts = [good]
        for amount in [nil, 0, -5, 9_007_199_254_740_992, 1] as [Int64?] { var draft = good; draft.amount = amount; drafts.append(draft) }
        for currency in [nil, "usd", "XXX", "EUR", ""] as [String?] {
            var draft = good; draft.currency = currency.map(DraftInput.text); drafts.append(draft)
        }
        for category in [nil, "", "  ", " food ", "a\u{7}b", String(repeating: "c", count: 65), "cafe\u{301}",
                         String(repeating: "é", count: 64)] as [String?] {
            var draft = good; draft.category = category; drafts.append(draft)
        }
        for date in [nil, "2026-02-30", "1899-12-31", "2026-1-5", "x"] as [String?] {
            var draft = good; draft.date = date.map(DraftInput.text); drafts.append(draft)
        }
        for note in [nil, "", "a\tb\nc", "bell\u{7}", String(repeating: "n", count: 301), String(repeating: "€", count: 300),
                     String(repeating: "n", count: 300)] as [String?] {
            var draft = good; draft.note = note; drafts.append(draft)
        }
        for draft in drafts {
            var withText = draft
            withText.id = .text(id.uuidString)
            var withValue = draft
            withValue.id = .value(id)
            let expected = Self.outcome { try ExpenseValidator.validate(withText) }
            #expect(Self.outcome { try ExpenseValidator.validate(withValue) } == expected, "\(draft)")
            // The currency and the date as values too (what a stored expense's draft and a pull page hold).
            if let currency = try? draft.currency?.resolved(ExpenseValidator.validateCurrency),
               let date = try? draft.date?.resolved(ExpenseValidator.validateDate) {
                var values = withValue
                values.currency = .value(currency)
                values.date = .value(date)
                #expect(Self.outcome { try ExpenseValidator.validate(values) } == expected, "\(draft)")
                #expect(values == withText.merging(ExpenseDraft(id: .text(UUIDText.lowercased(id)), currency: nil, date: nil)),
                        "a value equals its text")
            }
        }
    }
}
