import ExpenseProtocol
import Foundation
@testable import ExpenseServer

/// The kept outcomes both stores' migration tests write in the shape before outcome runs (one row per outcome)
/// and read back after: every kind of outcome, a rejection's message with non-ASCII text, and a hole.
enum OldOutcomeRowsFixture {
    /// A client with 30 consumed mutations: outcomes of every kind, none kept for mutationId 12.
    static func manyKinds() -> [Int64: ConsumedOutcome] {
        var outcomes: [Int64: ConsumedOutcome] = [:]
        for mutationId in Int64(1)...30 {
            switch mutationId % 4 {
            case 0: outcomes[mutationId] = .applied(version: mutationId % 3 + 1, seq: 100 - mutationId)
            case 1: outcomes[mutationId] = .conflict(id: UUID())
            case 2: outcomes[mutationId] = .rejected(MutationRejection(reason: "invalid_note", field: "note", message: "trop long: é🙂 \(mutationId)"))
            default: outcomes[mutationId] = .rejected(MutationRejection(reason: "invalid_mutation", field: nil, message: "bad"))
            }
        }
        outcomes[12] = nil  // a hole: consumed before outcomes were kept, say
        return outcomes
    }

    /// A client with two applied mutations.
    static let twoApplied: [Int64: ConsumedOutcome] = [1: .applied(version: 1, seq: 1), 2: .applied(version: 1, seq: 2)]
}
