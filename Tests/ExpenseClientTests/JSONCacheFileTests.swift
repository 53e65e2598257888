@testable import ExpenseClient
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

    /// The file's members are unchanged now that an expense's fields are written from their one declaration: a
    /// format-2 file as the store wrote it before is read whole and written back member for member.
    @Test func aFileWrittenBeforeIsWrittenBackMemberForMember() throws {
        let file = #"""
        {"conflicts":[{"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","mine":"put","mineBaseVersion":1,
          "mineFields":{"amount":900,"note":"mine"},
          "theirs":{"amount":1250,"baseVersion":2,"category":"food","currency":"EUR","date":"2026-12-01",
                    "deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"theirs","order":0,"seq":7}}],
         "expenses":[{"amount":1250,"baseVersion":2,"category":"food","currency":"EUR","date":"2026-12-01",
                      "deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"caf\u00e9","order":1}],
         "format":2,"meta":{},"nextOrder":2,"nextPosition":3,
         "pending":[{"baseVersion":2,"category":"home","currency":"usd","date":"2026-12-02","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff",
                     "mutationId":4,"position":1,"rejectField":"currency","rejectMessage":"unknown","rejectReason":"invalid_currency",
                     "state":"rejected","type":"put"},
                    {"baseVersion":0,"id":"7f9619ff-8b86-d011-b42d-00cf4fc964ff","ifAbsent":true,"position":2,"state":"unsent",
                     "type":"delete"}],
         "serverCopies":[{"amount":1250,"baseVersion":2,"category":"food","currency":"EUR","date":"2026-12-01","deleted":false,
                          "id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","order":0,"seq":7}]}
        """#
        let state = try JSONFileExpenseStore.decode(Data(file.utf8), path: "cache.json")
        let written = try JSONFileExpenseStore.encode(state)
        let before = try JSONSerialization.jsonObject(with: Data(file.utf8)) as? NSDictionary
        let after = try JSONSerialization.jsonObject(with: written) as? NSDictionary
        #expect(before != nil && before == after)
    }
}
