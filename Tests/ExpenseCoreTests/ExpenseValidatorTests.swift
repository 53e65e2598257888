import ExpenseCore
import Foundation
import Testing

@Suite("ExpenseValidator")
struct ExpenseValidatorTests {
    // MARK: the whole draft

    @Test("a good draft becomes an expense with the same values")
    func valid() throws {
        let expense = try ExpenseValidator.validate(makeDraft(note: "lunch\twith Ann\nand Bob"))
        #expect(expense.idString == "6ba7b810-9dad-11d1-80b4-00c04fd430c8")
        #expect(expense.amount == 1250)
        #expect(expense.currency == .usd)
        #expect(expense.category == "food")
        #expect(expense.date.description == "2026-01-05")
        #expect(expense.note == "lunch\twith Ann\nand Bob")
        #expect(try ExpenseValidator.validate(expense.draft) == expense)
    }

    @Test("a missing note is the empty note")
    func missingNote() throws {
        #expect(try ExpenseValidator.validate(makeDraft(note: nil)).note == "")
    }

    @Test("missing fields are reported in the order id, amount, currency, category, date")
    func missingFieldsInOrder() {
        var draft = ExpenseDraft()
        expectValidationError("missing_field", field: .id) { try ExpenseValidator.validate(draft) }
        draft.id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
        expectValidationError("missing_field", field: .amount) { try ExpenseValidator.validate(draft) }
        draft.amount = 1
        expectValidationError("missing_field", field: .currency) { try ExpenseValidator.validate(draft) }
        draft.currency = "EUR"
        expectValidationError("missing_field", field: .category) { try ExpenseValidator.validate(draft) }
        draft.category = "rent"
        expectValidationError("missing_field", field: .date) { try ExpenseValidator.validate(draft) }
        draft.date = "2026-02-28"
        #expect(throws: Never.self) { try ExpenseValidator.validate(draft) }
    }

    @Test("the first bad field in order is the one reported")
    func firstProblemWins() {
        let draft = makeDraft(id: "x", amount: 0, currency: "usd", category: " ", date: "2026-02-29", note: "\u{7}")
        expectValidationError("invalid_id", field: .id) { try ExpenseValidator.validate(draft) }
        var next = draft
        next.id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
        expectValidationError("invalid_amount", field: .amount) { try ExpenseValidator.validate(next) }
        next.amount = 5
        expectValidationError("invalid_currency", field: .currency) { try ExpenseValidator.validate(next) }
        next.currency = "USD"
        expectValidationError("empty_category", field: .category) { try ExpenseValidator.validate(next) }
        next.category = "x"
        expectValidationError("invalid_date", field: .date) { try ExpenseValidator.validate(next) }
        next.date = "2024-02-29"
        expectValidationError("invalid_text", field: .note) { try ExpenseValidator.validate(next) }
    }

    // MARK: amount

    @Test("amount must be 1 … 2^53−1 minor units", arguments: [
        (Int64.min, false), (-1, false), (0, false), (1, true),
        (9_007_199_254_740_991, true), (9_007_199_254_740_992, false), (Int64.max, false),
    ])
    func amount(value: Int64, valid: Bool) {
        if valid {
            #expect(throws: Never.self) { try ExpenseValidator.validate(makeDraft(amount: value)) }
        } else {
            expectValidationError("invalid_amount", field: .amount) { try ExpenseValidator.validate(makeDraft(amount: value)) }
        }
    }

    // MARK: id

    @Test("ids: a UUID in either case", arguments: [
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
        "6Ba7B810-9dAd-11d1-80b4-00C04fd430c8", "00000000-0000-0000-0000-000000000000",
    ])
    func goodIDs(text: String) throws {
        let expense = try ExpenseValidator.validate(makeDraft(id: text))
        #expect(expense.idString == text.lowercased())
    }

    @Test("ids: anything else is invalid_id", arguments: [
        "", "x", "6ba7b8109dad11d180b400c04fd430c8", "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
        " 6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6ba7b810-9dad-11d1-80b4-00c04fd430c8 ",
        "6ba7b810-9dad-11d1-80b4-00c04fd430cg", "6ba7b810-9dad-11d1-80b4-00c04fd430c", "6ba7b810-9dad-11d1-80b4+00c04fd430c8",
        "6ba7b8109-dad-11d1-80b4-00c04fd430c8", "6ba7b810-9dad-11d1-80b4-00c04fd430c8a",
    ])
    func badIDs(text: String) {
        expectValidationError("invalid_id", field: .id) { try ExpenseValidator.validate(makeDraft(id: text)) }
    }

    // MARK: currency

    @Test("currency: upper-case active codes only", arguments: ["usd", "XXX", "XTS", "XAU", "", "EURO"])
    func badCurrency(text: String) {
        expectValidationError("invalid_currency", field: .currency) { try ExpenseValidator.validate(makeDraft(currency: text)) }
    }

    // MARK: category

    @Test("blank categories are empty_category", arguments: [
        "", " ", "   ", "\t", "\n", "\r\n", " \t\n ", "\u{3000}", "\u{A0}", "\u{2003}", "\u{2028}", "\u{85}",
        "\u{0B}\u{0C}",
    ])
    func blankCategory(text: String) {
        expectValidationError("empty_category", field: .category) { try ExpenseValidator.validate(makeDraft(category: text)) }
    }

    @Test("categories are stored trimmed", arguments: [
        ("  food  ", "food"), ("\tfood\n", "food"), ("\u{3000}食費\u{3000}", "食費"), ("\r\nrent\r\n", "rent"),
        (" eating out ", "eating out"), ("food", "food"),
    ])
    func trimmed(text: String, stored: String) throws {
        let expense = try ExpenseValidator.validate(makeDraft(category: text))
        #expect(Array(expense.category.unicodeScalars) == Array(stored.unicodeScalars))
    }

    @Test("category length is counted in what a person sees (grapheme clusters)", arguments: [
        ("a", 64, true), ("a", 65, false),
        ("e\u{301}", 64, true), ("e\u{301}", 65, false),             // é as e + combining acute: 2 scalars, 1 character
        ("🇫🇷", 32, true), ("🇫🇷", 64, false),                         // a flag: 2 regional indicators, 1 character of 8 bytes
        ("👩‍👩‍👧‍👦", 10, true), ("👩‍👩‍👧‍👦", 11, false),                     // a family: 7 scalars joined, 1 character of 25 bytes
        ("食", 64, true), ("食", 65, false),
    ])
    func categoryLength(unit: String, count: Int, valid: Bool) throws {
        let text = String(repeating: unit, count: count)
        if valid {
            #expect(try ExpenseValidator.validate(makeDraft(category: text)).category == text)
        } else {
            expectValidationError("category_too_long", field: .category) {
                try ExpenseValidator.validate(makeDraft(category: text))
            }
        }
    }

    @Test("the 64-character limit applies after trimming")
    func lengthAfterTrimming() throws {
        let text = "  " + String(repeating: "a", count: 64) + "\n\t "
        #expect(try ExpenseValidator.validate(makeDraft(category: text)).category.count == 64)
    }

    @Test("control characters inside a category are invalid_text", arguments: [
        "fo\tod", "fo\nod", "fo\rod", "fo\u{0}od", "fo\u{7}od", "fo\u{7F}od", "fo\u{85}od", "fo\u{1B}[31mod",
        "food\u{7}", "\u{0}food", "fo\u{9F}od",
    ])
    func controlInCategory(text: String) {
        expectValidationError("invalid_text", field: .category) { try ExpenseValidator.validate(makeDraft(category: text)) }
    }

    // MARK: note

    @Test("note length is counted in grapheme clusters", arguments: [
        ("a", 300, true), ("a", 301, false), ("e\u{301}", 300, true), ("e\u{301}", 301, false),
        ("🇯🇵", 150, true), ("🇯🇵", 151, false), ("\n", 300, true), ("\n", 301, false),   // a flag is 8 bytes: 1,200 bytes at most
    ])
    func noteLength(unit: String, count: Int, valid: Bool) throws {
        let text = String(repeating: unit, count: count)
        if valid {
            #expect(try ExpenseValidator.validate(makeDraft(note: text)).note == text)
        } else {
            expectValidationError("note_too_long", field: .note) { try ExpenseValidator.validate(makeDraft(note: text)) }
        }
    }

    @Test("notes allow tab and newline only among control characters", arguments: [
        ("a\tb", true), ("a\nb", true), ("\n\n", true), ("a\rb", false), ("a\r\nb", false), ("\u{0}", false),
        ("\u{7}", false), ("\u{7F}", false), ("\u{85}", false), ("\u{1B}", false), ("\u{0B}", false), ("\u{0C}", false),
        ("\u{9F}", false),
    ])
    func noteControl(text: String, valid: Bool) throws {
        if valid {
            #expect(try ExpenseValidator.validate(makeDraft(note: text)).note == text)
        } else {
            expectValidationError("invalid_text", field: .note) { try ExpenseValidator.validate(makeDraft(note: text)) }
        }
    }

    @Test("notes are stored exactly: spaces kept, no trimming")
    func noteExact() throws {
        let text = "  two spaces before, a newline after\n"
        #expect(try ExpenseValidator.validate(makeDraft(note: text)).note.utf8.elementsEqual(text.utf8))
    }

    /// Swift's `==` on strings ignores normalisation, so these compare the stored scalars.
    @Test("text is not normalised: NFC and NFD stay distinct")
    func noNormalisation() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        let a = try ExpenseValidator.validate(makeDraft(category: nfc, note: nfc))
        let b = try ExpenseValidator.validate(makeDraft(category: nfd, note: nfd))
        #expect(Array(a.category.unicodeScalars) == Array(nfc.unicodeScalars))
        #expect(Array(b.category.unicodeScalars) == Array(nfd.unicodeScalars))
        #expect(Array(a.note.utf8) == Array(nfc.utf8))
        #expect(Array(b.note.utf8) == Array(nfd.utf8))
        #expect(Array(a.category.utf8) != Array(b.category.utf8))
    }
}

/// The typed entry a pull page's fast path validates a record through gives what the draft's path gives, an
/// expense or the same error, for values at and past every limit of the six fields.
@Suite struct TypedStoredValidationTests {
    @Test(arguments: [0, 1, 1250, ExpenseRules.maximumAmount, ExpenseRules.maximumAmount + 1, -5])
    func amounts(amount: Int64) { expectSame(amount: amount, category: "food", note: "") }

    @Test(arguments: ["food", "", "  padded  ", "caf\u{E9}", "tab\there", String(repeating: "x", count: 64),
                      String(repeating: "x", count: 65), String(repeating: "\u{E9}", count: 64), "line\nbreak", "bell\u{7}"])
    func categories(category: String) { expectSame(amount: 1, category: category, note: "") }

    @Test(arguments: ["", "lunch\twith Ann\nand Bob", String(repeating: "n", count: 300), String(repeating: "n", count: 301),
                      String(repeating: "\u{1F600}", count: 300), "escape\u{1B}", "nul\u{0}"])
    func notes(note: String) { expectSame(amount: 1, category: "food", note: note) }

    private func expectSame(amount: Int64, category: String, note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let date = CalendarDay("2026-12-06") else { Issue.record("no date"); return }
        let id = UUID()
        let typed = Result { try ExpenseValidator.validateStored(id: id, amount: amount, currency: .usd, category: category,
                                                                 date: date, note: note) }
        let drafted = Result { try ExpenseValidator.validateStored(ExpenseDraft(id: .value(id), amount: amount, currency: .value(.usd),
                                                                                category: category, date: .value(date), note: note)) }
        switch (typed, drafted) {
        case (.success(let a), .success(let b)): #expect(a == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)", sourceLocation: sourceLocation)
        default: Issue.record("typed \(typed), drafted \(drafted)", sourceLocation: sourceLocation)
        }
    }
}
