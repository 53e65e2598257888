import ExpenseCore
import Testing

/// Categories and notes are bounded in bytes of UTF-8 as well as in characters (Protocol.md §6, §7.2), so a
/// record or a mutation of any valid expense fits in one protocol line.
@Suite("ExpenseValidator byte limits")
struct ExpenseValidatorByteLimitTests {
    /// One grapheme cluster of `e` and `marks` combining acute accents (U+0301, two bytes each).
    static func accented(_ marks: Int) -> String { "e" + String(repeating: "\u{301}", count: marks) }

    @Test("a note is at most 300 characters AND at most 1,200 bytes", arguments: [
        ("ASCII, 300 bytes", String(repeating: "a", count: 300), nil as String?),
        ("ASCII, 301 characters", String(repeating: "a", count: 301), "characters"),
        ("Japanese, 300 characters, 900 bytes", String(repeating: "日", count: 300), nil),
        ("Japanese, 301 characters", String(repeating: "日", count: 301), "characters"),
        ("emoji, 300 characters, 1,200 bytes", String(repeating: "😀", count: 300), nil),
        ("flags, 150 characters, 1,200 bytes", String(repeating: "🇯🇵", count: 150), nil),
        ("flags, 151 characters, 1,208 bytes", String(repeating: "🇯🇵", count: 151), "bytes"),
        ("1 character of 1,199 bytes", accented(599), nil),
        ("1 character of 1,201 bytes", accented(600), "bytes"),
        ("1 character of 1,200,001 bytes", accented(600_000), "bytes"),
        ("299 letters and one 1,000-byte character", String(repeating: "a", count: 299) + accented(500), "bytes"),
    ])
    func note(label: String, text: String, exceeded: String?) {
        if let exceeded {
            let error = #expect(throws: ValidationError.self, "\(label)") { try ExpenseValidator.validate(makeDraft(note: text)) }
            #expect(error?.code == "note_too_long", "\(label)")
            #expect(error?.field == .note, "\(label)")
            #expect(error?.message.contains(exceeded == "bytes" ? "1,200 bytes" : "300 characters") == true, "\(label): \(String(describing: error))")
        } else {
            #expect(throws: Never.self, "\(label)") { try ExpenseValidator.validate(makeDraft(note: text)) }
        }
    }

    @Test("a category is at most 64 characters AND at most 256 bytes, after trimming", arguments: [
        ("ASCII, 64 characters", String(repeating: "c", count: 64), nil as String?),
        ("ASCII, 65 characters", String(repeating: "c", count: 65), "characters"),
        ("emoji, 64 characters, 256 bytes", String(repeating: "😀", count: 64), nil),
        ("flags, 32 characters, 256 bytes", String(repeating: "🇯🇵", count: 32), nil),
        ("flags, 33 characters, 264 bytes", String(repeating: "🇯🇵", count: 33), "bytes"),
        ("1 character of 255 bytes", accented(127), nil),
        ("1 character of 257 bytes", accented(128), "bytes"),
        ("256 bytes inside spaces (trimmed first)", "   " + String(repeating: "😀", count: 64) + "   ", nil),
    ])
    func category(label: String, text: String, exceeded: String?) {
        if let exceeded {
            let error = #expect(throws: ValidationError.self, "\(label)") { try ExpenseValidator.validate(makeDraft(category: text)) }
            #expect(error?.code == "category_too_long", "\(label)")
            #expect(error?.field == .category, "\(label)")
            #expect(error?.message.contains(exceeded == "bytes" ? "256 bytes" : "64 characters") == true, "\(label): \(String(describing: error))")
        } else {
            #expect(throws: Never.self, "\(label)") { try ExpenseValidator.validate(makeDraft(category: text)) }
        }
    }

    @Test("an expense read back (validateStored) keeps every rule but the byte limits, which came later")
    func storedRecordsAreReadAsTheyAre() throws {
        let flags = String(repeating: "🇯🇵", count: 300)  // 300 characters, 2,400 bytes: accepted before the byte limits
        let draft = makeDraft(category: String(repeating: "🇫🇷", count: 64), note: flags)
        expectValidationError("category_too_long", field: .category) { try ExpenseValidator.validate(draft) }
        let stored = try ExpenseValidator.validateStored(draft)
        #expect(stored.note == flags && stored.category.count == 64)
        expectValidationError("note_too_long", field: .note) { try ExpenseValidator.validateStored(makeDraft(note: flags + "a")) }
        expectValidationError("invalid_amount", field: .amount) { try ExpenseValidator.validateStored(makeDraft(amount: 0)) }
    }
}
