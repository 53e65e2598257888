import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

@Suite struct RecordObjectRowTests {
    /// The row's inline arrays are sized by a literal: a new optional field must grow them too.
    @Test func holdsEveryExpenseValue() {
        #expect(ExpenseColumns.Texts.count == ExpenseColumns.Value.count)
        #expect(ExpenseColumns.Integers.count == ExpenseColumns.Value.count)
        #expect(ExpenseColumns.types.count == Int(ExpenseColumns.count))
        #expect(ExpenseColumns.Value.count == Int(ExpenseColumns.extras) + ExpenseExtras.Key.allCases.count)
        #expect(ExpenseExtras.Key.allCases.map(ExpenseColumns.Value.position)
                == [ExpenseColumns.Value.paidBy, ExpenseColumns.Value.split, ExpenseColumns.Value.charged,
                    ExpenseColumns.Value.tags, ExpenseColumns.Value.parts, ExpenseColumns.Value.source])
    }

    /// A column writer that keeps each value in order: what ``ExpenseColumns/write(_:to:)`` stores in a row.
    struct Values: ExpenseColumnWriter {
        enum Value: Equatable { case integer(Int64), text(String), null }
        var all: [Value] = []
        mutating func integer(_ value: Int64) throws { all.append(.integer(value)) }
        mutating func text(_ value: String) throws { all.append(.text(value)) }
        mutating func null() throws { all.append(.null) }
    }

    /// A record's row holds each of its expense's values at its position, integers and texts alike: the stored
    /// columns' values at theirs, each optional field at its own, as the `extras` column holds it; an optional field
    /// left unused is an empty text, or 0.
    @Test(arguments: [false, true])
    func recordLendsEachValueAtItsPosition(everyField: Bool) throws {
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
        guard case .text(let extras) = stored.all.last else { Issue.record("no extras text"); return }
        #expect(extras.isEmpty != everyField)
        let optional = try #require(ExpenseExtras.values(in: extras))
        let record = Record(expense: expense, version: 3, seq: 9, deleted: false)
        record.withObjectRow { row in
            for (index, value) in stored.all.enumerated().dropLast() {
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
            for key in ExpenseExtras.Key.allCases {
                let position = ExpenseColumns.Value.position(of: key), value = optional[key.rawValue]
                if key == .charged {
                    #expect(row.int64(position) == value.flatMap { Int64($0) } ?? 0)
                    #expect(row.text(position).isEmpty)
                } else {
                    #expect(String(decoding: row.text(position), as: UTF8.self) == value ?? "", "\(key.name)")
                    #expect(row.int64(position) == 0)
                }
            }
        }
    }
}
