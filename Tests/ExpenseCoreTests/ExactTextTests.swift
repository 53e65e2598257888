import ExpenseCore
import Foundation
import Testing

/// The one text comparison: bytes, not Swift's canonical equivalence.
@Suite("ExactText")
struct ExactTextTests {
    static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"

    @Test("canonically equivalent spellings are different text; equal bytes are the same")
    func bytesDecide() {
        #expect(Self.composed == Self.decomposed)  // what Swift's == says, and why it is not used
        #expect(!ExactText.same(Self.composed, Self.decomposed))
        #expect(ExactText.same(Self.composed, "caf\u{E9}"))
        #expect(!ExactText.same("\u{C5}", "\u{212B}") && !ExactText.same(nil, ""))
        #expect(ExactText.same(nil as String?, nil) && ExactText.same("a" as String?, "a"))
    }

    @Test("Expense, ExpenseDraft and GroupTotal compare and hash text by its bytes")
    func valuesFollowTheBytes() throws {
        let id = UUID().uuidString.lowercased()
        let draft = { (note: String) in
            ExpenseDraft(id: id, amount: 100, currency: "EUR", category: "food", date: "2026-01-01", note: note)
        }
        let nfc = try ExpenseValidator.validate(draft(Self.composed))
        let nfd = try ExpenseValidator.validate(draft(Self.decomposed))
        let again = try ExpenseValidator.validate(draft(Self.composed))
        #expect(nfc != nfd && nfc == again)
        #expect(Set([nfc, nfd]).count == 2 && Set([draft(Self.composed), draft(Self.decomposed)]).count == 2)
        #expect(draft(Self.composed) != draft(Self.decomposed))
        let group = { (key: String) in GroupTotal(key: key, currency: .usd, amount: 1, count: 1) }
        #expect(group(Self.composed) != group(Self.decomposed) && Set([group(Self.composed), group(Self.decomposed)]).count == 2)
        #expect(SummaryQuery(category: Self.composed) != SummaryQuery(category: Self.decomposed))
        #expect(SummaryQuery(category: Self.composed) == SummaryQuery(category: "caf\u{E9}"))
    }
}
