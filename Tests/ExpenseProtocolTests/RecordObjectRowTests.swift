import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

@Suite struct RecordObjectRowTests {
    /// The row's inline arrays are sized by a literal: a new expense column must grow them too.
    @Test func holdsEveryExpenseColumn() {
        #expect(ExpenseColumns.Texts.count == Int(ExpenseColumns.count))
        #expect(ExpenseColumns.Integers.count == Int(ExpenseColumns.count))
        #expect(ExpenseColumns.types.count == ExpenseColumns.Texts.count)
    }

    /// A column writer that keeps each value in order: what ``ExpenseColumns/write(_:to:)`` stores in a row.
    struct Values: ExpenseColumnWriter {
        enum Value: Equatable { case integer(Int64), text(String), null }
        var all: [Value] = []
        mutating func integer(_ value: Int64) throws { all.append(.integer(value)) }
        mutating func text(_ value: String) throws { all.append(.text(value)) }
        mutating func null() throws { all.append(.null) }
    }

    /// A record's row holds each of its expense's values at the column a database row stores it in, integers and
    /// texts alike; an optional field left unused is an empty text, or 0.
    @Test(arguments: [false, true])
    func recordLendsEachValueAtItsColumn(everyField: Bool) throws {
        let payer = UUID(), other = UUID()
        let draft = everyField
            ? ExpenseDraft(id: UUID().uuidString, amount: 1250, currency: "EUR", category: "food", date: "2026-11-30", note: "lunch",
                           paidBy: payer.uuidString.lowercased(),
                           split: "equal:" + [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ","),
                           charged: 1300, tags: ["b", "a"], parts: "250:drinks", source: "row,1250")
            : ExpenseDraft(id: UUID().uuidString, amount: 1250, currency: "JPY", category: "caf\u{E9}", date: "2026-11-30", note: "")
        let expense = try ExpenseValidator.validate(draft)
        var stored = Values()
        try ExpenseColumns.write(expense, to: &stored)
        #expect(stored.all.count == Int(ExpenseColumns.count))
        let record = Record(expense: expense, version: 3, seq: 9, deleted: false)
        record.withObjectRow { row in
            for (index, value) in stored.all.enumerated() {
                let column = Int32(index)
                switch value {
                case .integer(let number):
                    #expect(row.int64(column) == number, "column \(index)")
                    #expect(row.text(column).isEmpty)
                case .text(let text):
                    #expect(String(decoding: row.text(column), as: UTF8.self) == text, "column \(index)")
                    #expect(row.int64(column) == 0)
                case .null:
                    Issue.record("an expense's column \(index) is NULL")
                }
            }
        }
    }
}
