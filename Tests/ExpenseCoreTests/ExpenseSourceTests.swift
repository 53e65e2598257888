import ExpenseCore
import Foundation
import Testing

/// An expense's original text (``Expense/source``): checked by the note's one rule under its own name, kept by a
/// draft and an edit of the note, and read by rules as the bank's text when it has one.
@Suite struct ExpenseSourceTests {
    static func draft(source: String?, note: String = "lunch") -> ExpenseDraft {
        ExpenseDraft(id: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", amount: 1250, currency: "EUR", category: "food",
                     date: "2026-12-02", note: note, source: source)
    }

    /// The same text gives the same verdict as a note, and a refusal names `source`.
    @Test("the original text follows the note's rule exactly, naming its own field", arguments: [
        "", "REWE SAGT DANKE 4711", "tab\tand\nnewline", String(repeating: "x", count: 300), String(repeating: "x", count: 301),
        "bell\u{7}", "c1\u{85}", String(repeating: "e\u{301}", count: 300), String(repeating: "\u{1F600}", count: 301),
        String(repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", count: 60),
    ])
    func sameRuleAsTheNote(text: String) {
        let asNote = Result { try ExpenseValidator.validateNote(text) }
        let asSource = Result { try ExpenseValidator.validateSource(text) }
        switch (asNote, asSource) {
        case (.success(let note), .success(let source)): #expect(ExactText.same(note, source) && ExactText.same(source, text))
        case (.failure(let noteError as ValidationError), .failure(let sourceError as ValidationError)):
            #expect(sourceError.field == .source)
            switch noteError {
            case .noteTooLong(let limit): #expect(sourceError == .sourceTooLong(limit))
            case .invalidText(.note): #expect(sourceError == .invalidText(.source))
            default: Issue.record("unexpected \(noteError)")
            }
        default: Issue.record("the note and the original text disagree on \(text.debugDescription): \(asNote) \(asSource)")
        }
        let whole = Result { try ExpenseValidator.validate(Self.draft(source: text)) }
        switch (whole, asSource) {
        case (.success(let expense), .success): #expect(ExactText.same(expense.source, text))
        case (.failure(let error as ValidationError), .failure(let alone as ValidationError)): #expect(error == alone)
        default: Issue.record("validate and validateSource disagree on \(text.debugDescription)")
        }
    }

    @Test("no original text is the empty one; stored expenses skip the byte limit as for notes")
    func emptyAndStored() throws {
        #expect(try ExpenseValidator.validate(Self.draft(source: nil)).source == "")
        let long = String(repeating: "\u{20AC}\u{301}\u{301}", count: 300)  // 300 characters, 2,100 bytes
        #expect(throws: ValidationError.sourceTooLong(.bytes)) { try ExpenseValidator.validate(Self.draft(source: long)) }
        #expect(try ExpenseValidator.validateStored(Self.draft(source: long)).source == long)
    }

    @Test("an edit of the note keeps the original text; equality and the field's answers compare it by its bytes")
    func keptAndCompared() throws {
        let expense = try ExpenseValidator.validate(Self.draft(source: "caf\u{E9}"))
        let edited = try ExpenseValidator.validate(expense.draft.merging(ExpenseDraft(note: "something else")))
        #expect(edited.source == "caf\u{E9}" && edited.note == "something else")
        let nfd = try ExpenseValidator.validate(Self.draft(source: "cafe\u{301}"))
        #expect(expense != nfd && !ExpenseField.source.same(expense, nfd))
        #expect(ExpenseField.source.conflictGroup == [.source] && ExpenseField.source.conflictGroupName == "source")
        var draft = ExpenseDraft()
        ExpenseField.source.copy(from: expense, to: &draft)
        #expect(draft.source == "caf\u{E9}" && ExpenseField.source.matches(draft, expense) == true)
        #expect(ExpenseField.source.matches(draft, nfd) == false)
    }

    @Test("rules read the original text as the bank's text when there is one, else the note")
    func rulesReadTheOriginalText() throws {
        let imported = try ExpenseValidator.validate(Self.draft(source: "REWE SAGT DANKE 4711", note: "something else"))
        let added = try ExpenseValidator.validate(Self.draft(source: nil, note: "REWE Markt"))
        #expect(ImportRule.originalText(of: imported) == "REWE SAGT DANKE 4711")
        #expect(ImportRule.originalText(of: added) == "REWE Markt")
    }
}
