import ExpenseClient
import ExpenseCore
import Foundation
import Testing
import TestSupport

/// What the JSON file store makes of a cache.json it did not write (found by Scripts/fuzz's json-cache target's
/// inputs): a file that cannot be used is a damaged cache, never a trap of the process.
@Suite struct JSONCacheFileTests {
    /// A queue position of Int64.max left no next position (`position + 1` trapped while reading), and a
    /// `nextOrder` or `nextPosition` of Int64.max trapped on the next `add` (`+= 1`): each is refused on open.
    @Test(arguments: [
        #"{"format":2,"nextOrder":1,"expenses":[],"meta":{},"pending":[{"type":"delete","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","baseVersion":0,"position":9223372036854775807}]}"#,
        #"{"format":2,"nextOrder":9223372036854775807,"expenses":[],"pending":[],"meta":{}}"#,
        #"{"format":2,"nextOrder":1,"nextPosition":9223372036854775807,"expenses":[],"pending":[],"meta":{}}"#,
    ])
    func aCounterWithNoRoomLeftIsADamagedCache(file: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.json"
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        do {
            let ledger = LocalLedger(store: try JSONFileExpenseStore(path: path))
            try ledger.add(.init(amount: 1250, currency: "USD", category: "food", date: "2026-12-04"))
            Issue.record("a cache with no next position or order was opened and written")
        } catch let error as StoreError {
            guard case .damaged(let named, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(named == path)
        }
    }

    /// The largest counters that still leave room are read, and the next add takes them.
    @Test func theLargestUsableCountersAreRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cache.json"
        let file = #"{"format":2,"nextOrder":9223372036854775806,"nextPosition":9223372036854775806,"expenses":[],"pending":[],"meta":{}}"#
        try Data(file.utf8).write(to: URL(fileURLWithPath: path))
        let store = try JSONFileExpenseStore(path: path)
        try LocalLedger(store: store).add(.init(amount: 1250, currency: "USD", category: "food", date: "2026-12-04"))
        #expect(try store.pendingCount() == 1)
    }
}
