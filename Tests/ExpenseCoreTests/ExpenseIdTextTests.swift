import ExpenseCore
import Foundation
import Testing

/// `Expense.idString` is formatted by hand: it must equal Foundation's text, lowered.
@Test func idTextMatchesFoundation() {
    var ids = (0..<2_000).map { _ in UUID() }
    ids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    ids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
    for id in ids {
        #expect(Expense.lowercaseText(of: id) == id.uuidString.lowercased())
    }
}
