import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// An occurrence's `ifAbsent` create survives every store, reopened (client migration 9 for SQLite).
@Suite struct ExpenseStoreIfAbsentTests {
    @Test("a queue entry keeps its ifAbsent flag through update and reopening", arguments: CacheStoreKind.allCases)
    func ifAbsentKept(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let id = UUID()
        let fields = ExpenseDraft(amount: 950, currency: "EUR", category: "rent", date: "2026-01-31", note: "")
        do {
            let store = try kind.open(in: directory)
            try store.write { transaction in
                var entry = try transaction.appendPending(PendingMutation(type: .put, id: id, baseVersion: 0, fields: fields, ifAbsent: true))
                try transaction.appendPending(PendingMutation(type: .delete, id: id, baseVersion: 1))
                entry.send(as: 1)
                try transaction.updatePending(entry)
            }
            #expect(try store.pendingMutations(limit: 5).map(\.ifAbsent) == [true, false])
            guard kind.isPersistent else { return }
        }
        let reopened = try kind.open(in: directory)
        let queue = try reopened.pendingMutations(limit: 5)
        #expect(queue.map(\.ifAbsent) == [true, false] && queue.first?.mutationId == 1)
    }
}
