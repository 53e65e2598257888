import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The PostgreSQL store's group commit (2 round trips per group, whatever its size): the read-ahead of a
/// whole group goes with the row lock, and the group's rows go in one write pipeline. Many pushes from several
/// clients in one transaction must give exactly the answers, records, totals, outcomes and history that the
/// same pushes give one per transaction, and that the in-memory reference gives, rejected ones included.
@Suite(.offTheCooperativePool) struct PostgresGroupedPushTests {
    static let enabled = PostgresTestCluster.enabled
    static let reason = Comment(rawValue: PostgresTestCluster.skipReason)

    @Test(.enabled(if: enabled, reason))
    func manyPushesInOneTransactionAnswerAndWriteWhatOnePerTransactionDoes() throws {
        let schema = try PostgresTestSchema()
        func postgres(_ name: String) throws -> LedgerEngine {
            LedgerEngine(store: try schema.store(name: name, outcomeRetention: GroupedPushRowsTests.retention), currency: .usd)
        }
        let oneByOne = try postgres("one-by-one")
        let allInOne = try postgres("all-in-one")
        let inThrees = try postgres("in-threes")
        let reference = LedgerEngine(store: InMemoryLedgerStore(outcomeRetention: GroupedPushRowsTests.retention),
                                     currency: .usd)
        for engine in [oneByOne, allInOne, inThrees, reference] { engine.clock = { GroupedPushRowsTests.time } }

        let pushes = try GroupedPushRowsTests.pushes()
        let expected = try pushes.flatMap { try reference.apply([$0]) }.map(\.results)
        #expect(try pushes.flatMap { try oneByOne.apply([$0]) }.map(\.results) == expected)
        #expect(try allInOne.apply(pushes).map(\.results) == expected)
        var inThreesResults: [[MutationResult]] = []
        for start in stride(from: 0, to: pushes.count, by: 3) {
            inThreesResults += try inThrees.apply(Array(pushes[start..<min(start + 3, pushes.count)])).map(\.results)
        }
        #expect(inThreesResults == expected)
        let reasons = Set(expected.flatMap { $0.compactMap(\.status.reason) })
        #expect(reasons.isSuperset(of: ["not_found", "mutation_gap", "amount_overflow", "invalid_id", "invalid_amount"]))

        // A fresh store on the same ledger reads it all back from the database (no cache of this one's).
        let reopened = try postgres("all-in-one")
        _ = try reopened.store.transaction {}  // its live totals are read under the lock
        for engine in [allInOne, inThrees, reopened] { try GroupedPushRowsTests.expectSameState(engine, as: oneByOne, pushes: pushes) }
        try GroupedPushRowsTests.expectSameState(oneByOne, as: reference, pushes: pushes)
    }
}
