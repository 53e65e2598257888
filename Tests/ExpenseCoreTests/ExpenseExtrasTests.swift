import Foundation
import Testing
@testable import ExpenseCore

/// The optional fields' one column (`extras`): what an expense and a draft store there and read back, and the texts
/// a row changed behind the program's back may hold, which are refused rather than half read.
@Suite struct ExpenseExtrasTests {
    /// A row: the values ``ExpenseColumns/write(_:to:)`` writes, read back by position.
    struct Row: ExpenseColumnWriter, ExpenseColumnReader {
        enum Value: Equatable { case integer(Int64), text(String), null }
        var values: [Value] = []
        mutating func integer(_ value: Int64) throws { values.append(.integer(value)) }
        mutating func text(_ value: String) throws { values.append(.text(value)) }
        mutating func null() throws { values.append(.null) }
        func int64(_ column: Int32) -> Int64 { if case .integer(let value) = values[Int(column)] { value } else { 0 } }
        func text(_ column: Int32) -> String { if case .text(let value) = values[Int(column)] { value } else { "" } }
        func isNull(_ column: Int32) -> Bool { values[Int(column)] == .null }
    }

    private static let payer = UUID(), other = UUID()

    /// The draft of an expense with the optional fields `mask` selects (one bit per ``ExpenseExtras/Key``).
    private static func draft(_ mask: Int) -> ExpenseDraft {
        let set = { (key: ExpenseExtras.Key) in mask & (1 << key.rawValue) != 0 }
        let members = [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ",")
        return ExpenseDraft(id: UUID().uuidString, amount: 1250, currency: "EUR", category: "food", date: "2026-11-30",
                            note: "a=b\twith tab", paidBy: set(.paidBy) || set(.split) ? payer.uuidString.lowercased() : nil,
                            split: set(.split) ? "equal:" + members : nil, charged: set(.charged) ? 1300 : nil,
                            tags: set(.tags) ? ["b", "caf\u{E9}"] : nil, parts: set(.parts) ? "250:drinks" : nil,
                            source: set(.source) ? "CARD 1250=ok\nline two" : nil)
    }

    /// Every combination of the six fields is written into the one column and read back as the same expense; an
    /// expense with none stores an empty text.
    @Test func everyCombinationOfFieldsIsReadBackAsWritten() throws {
        for mask in 0..<(1 << ExpenseExtras.Key.allCases.count) {
            let expense = try ExpenseValidator.validate(Self.draft(mask))
            var row = Row()
            try ExpenseColumns.write(expense, to: &row)
            #expect(row.values.count == Int(ExpenseColumns.count))
            #expect((row.text(ExpenseColumns.extras) == "") == !expense.hasOptionalFields, "mask \(mask)")
            let read = ExpenseColumns.read(id: expense.id, from: row, at: 0)
            #expect(read == expense, "mask \(mask)")
        }
    }

    /// The form: one `name=value` entry per field set, in the keys' order, joined by U+001F.
    @Test func theTextIsEntriesInTheKeysOrder() throws {
        let expense = try ExpenseValidator.validate(Self.draft(0b101100))
        #expect(ExpenseExtras.text(of: expense) == "charged=1300\u{1F}tags=b,caf\u{E9}\u{1F}source=CARD 1250=ok\nline two")
    }

    /// A draft names each field it gives, an empty one too (it clears the field); one it leaves out has no entry.
    @Test func aDraftKeepsWhatItGivesAndWhatItLeavesOut() throws {
        let cleared = ExpenseDraft(amount: 5, split: "", charged: 0, tags: [], source: "")
        var row = Row()
        try ExpenseColumns.write(cleared, to: &row)
        #expect(row.text(ExpenseColumns.extras) == "split=\u{1F}charged=0\u{1F}tags=\u{1F}source=")
        #expect(ExpenseColumns.readDraft(from: row, at: 0) == cleared)

        var none = Row()
        try ExpenseColumns.write(ExpenseDraft(note: "only"), to: &none)
        #expect(none.text(ExpenseColumns.extras) == "")
        #expect(ExpenseColumns.readDraft(from: none, at: 0) == ExpenseDraft(note: "only"))

        for mask in 0..<(1 << ExpenseExtras.Key.allCases.count) {
            var given = Row()
            try ExpenseColumns.write(Self.draft(mask), to: &given)
            var expected = Self.draft(mask)
            expected.id = nil
            #expect(ExpenseColumns.readDraft(from: given, at: 0) == expected, "mask \(mask)")
        }
    }

    /// A draft value holding the separator (no valid value does) is refused as its field's invalid text, never
    /// written as another entry.
    @Test func aDraftValueHoldingTheSeparatorIsRefused() {
        var row = Row()
        #expect(throws: ValidationError.invalidText(.source)) {
            try ExpenseColumns.write(ExpenseDraft(source: "a\u{1F}paidBy=x"), to: &row)
        }
    }

    /// Texts that are not the form (a row changed behind the program's back) are refused whole.
    @Test(arguments: ["paidBy", "=x", "colour=red", "tags=a\u{1F}tags=b", "tags=a\u{1F}charged=5", "tags=a\u{1F}",
                      "\u{1F}tags=a", "charged=x", "charged=0", "paidBy=not-a-member", "split=half", "parts=lots"])
    func aTextNotInTheFormIsRefused(text: String) throws {
        let expense = try ExpenseValidator.validate(Self.draft(0))
        var row = Row()
        try ExpenseColumns.write(expense, to: &row)
        row.values[Int(ExpenseColumns.extras)] = .text(text)
        #expect(ExpenseColumns.read(id: expense.id, from: row, at: 0) == nil)
    }

    /// Each entry is found by its name after a separator or at the start, never inside another's value.
    @Test func entriesAreFoundOnlyAsEntries() {
        let values = ExpenseExtras.values(in: "tags=parts=1\u{1F}source=x\u{1F}split=y")
        #expect(values == nil)  // out of order
        let ordered = ExpenseExtras.values(in: "tags=parts=1\u{1F}source=split=y")
        #expect(ordered?[ExpenseExtras.Key.tags.rawValue] == "parts=1")
        #expect(ordered?[ExpenseExtras.Key.parts.rawValue] == nil)
        #expect(ordered?[ExpenseExtras.Key.source.rawValue] == "split=y")
        #expect(ordered?[ExpenseExtras.Key.split.rawValue] == nil)
    }
}
