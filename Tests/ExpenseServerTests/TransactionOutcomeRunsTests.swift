import Foundation
import Testing
@testable import ExpenseServer

/// The one lookup of a kept outcome that the SQLite and PostgreSQL stores share: the window first, then the
/// transaction's own runs, then the runs it read, then storage, each committed run read once per transaction.
@Suite struct TransactionOutcomeRunsTests {
    let client = UUID()

    /// A committed run of `count` outcomes from `first` on, each applied at its own seq.
    static func run(first: Int64, count: Int) -> PendingOutcomeRun {
        PendingOutcomeRun(first: first, outcomes: (0..<Int64(count)).map { .applied(version: 1, seq: first + $0) })
    }

    /// Looks `mutationId` up over storage holding `stored`, counting the reads in `reads`.
    static func lookUp(_ runs: inout TransactionOutcomeRuns, _ clientId: UUID, _ mutationId: Int64, last: Int64,
                       keepsRead: Bool = true, stored: PendingOutcomeRun, reads: inout Int) throws -> ConsumedOutcome? {
        try runs.outcome(clientId: clientId, mutationId: mutationId, last: last, retention: 10, keepsRead: keepsRead) { asked in
            reads += 1
            return stored.outcome(asked) == nil ? nil : stored
        }
    }

    @Test func outsideTheWindowNothingIsReadAndNothingAnswered() throws {
        var runs = TransactionOutcomeRuns(), reads = 0
        let stored = Self.run(first: 1, count: 30)
        // last 30, retention 10: 21 … 30 are kept.
        #expect(try Self.lookUp(&runs, client, 20, last: 30, stored: stored, reads: &reads) == nil)
        #expect(try Self.lookUp(&runs, client, 31, last: 30, stored: stored, reads: &reads) == nil)
        #expect(reads == 0)
        #expect(try Self.lookUp(&runs, client, 21, last: 30, stored: stored, reads: &reads) == .applied(version: 1, seq: 21))
        #expect(reads == 1)
    }

    @Test func theTransactionsOwnOutcomesAnswerAndMoveTheWindowOn() throws {
        var runs = TransactionOutcomeRuns(), reads = 0
        let stored = Self.run(first: 1, count: 30)
        for mutationId in Int64(31)...45 { runs.keep(.conflict(id: client), clientId: client, mutationId: mutationId) }
        // The committed last is still 30; the kept run ends at 45, so 36 … 45 are the window now.
        #expect(try Self.lookUp(&runs, client, 40, last: 30, stored: stored, reads: &reads) == .conflict(id: client))
        #expect(try Self.lookUp(&runs, client, 30, last: 30, stored: stored, reads: &reads) == nil)
        #expect(reads == 0)
        #expect(runs.pending.clients == [client])
    }

    @Test func aRunReadServesTheTransactionsLaterLookupsOnlyWhenItMayBeKept() throws {
        var runs = TransactionOutcomeRuns(), reads = 0
        let stored = Self.run(first: 1, count: 30)
        for mutationId in Int64(21)...30 {
            #expect(try Self.lookUp(&runs, client, mutationId, last: 30, stored: stored, reads: &reads)
                    == .applied(version: 1, seq: mutationId))
        }
        #expect(reads == 1)
        // Another client's lookups read for themselves.
        #expect(try Self.lookUp(&runs, UUID(), 25, last: 30, stored: stored, reads: &reads) != nil)
        #expect(reads == 2)
        runs.removeAll()
        #expect(try Self.lookUp(&runs, client, 25, last: 30, stored: stored, reads: &reads) != nil)
        #expect(reads == 3)

        var outside = TransactionOutcomeRuns(), outsideReads = 0
        for mutationId in Int64(21)...23 {
            _ = try Self.lookUp(&outside, client, mutationId, last: 30, keepsRead: false, stored: stored, reads: &outsideReads)
        }
        #expect(outsideReads == 3)
    }
}
