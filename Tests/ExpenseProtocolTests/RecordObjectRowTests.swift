import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

@Suite struct RecordObjectRowTests {
    /// The row's inline arrays are sized by a literal: a new expense column must grow them too.
    @Test func holdsEveryExpenseColumn() {
        #expect(ExpenseColumns.Texts.count == Int(ExpenseColumns.count))
        #expect(ExpenseColumns.types.count == ExpenseColumns.Texts.count)
    }

    /// A record's row holds each of its expense's values at its column, integers and texts alike; an optional field
    /// left unused is an empty text.
    @Test func recordLendsEachValueAtItsColumn() throws {
        let payer = UUID(), other = UUID()
        let expense = try ExpenseValidator.validate(ExpenseDraft(
            id: UUID().uuidString, amount: 1250, currency: "EUR", category: "food", date: "2026-11-30", note: "lunch",
            paidBy: payer.uuidString.lowercased(),
            split: "equal:" + [payer, other].map { $0.uuidString.lowercased() }.sorted().joined(separator: ","),
            charged: 1300, tags: ["b", "a"], source: "row,1250"))
        let record = Record(expense: expense, version: 3, seq: 9, deleted: false)
        record.withObjectRow { row in
            for index in ExpenseColumns.types.indices {
                let column = Int32(index)
                switch ExpenseColumns.types[index] {
                case .integer, .day:
                    #expect(row.int64(column) == ExpenseColumns.int64(of: expense, at: column))
                    #expect(row.text(column).isEmpty)
                case .text, .currency:
                    #expect(String(decoding: row.text(column), as: UTF8.self) == ExpenseColumns.text(of: expense, at: column))
                }
            }
        }
    }
}
