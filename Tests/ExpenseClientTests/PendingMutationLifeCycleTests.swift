import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseClient

/// An outbox entry's life cycle as transcripts: events in, the state (number, rejection) after each, no store and no
/// socket (the model is postgres-nio's ConnectionStateMachineTests).
@Suite struct PendingMutationLifeCycleTests {
    enum Event { case send(Int64), answerLost, reject(MutationRejection), reopen }
    struct Step: Equatable {
        var state: PendingMutation.State
        var mutationId: Int64?
        var rejection: String?
    }

    private func run(_ events: [Event]) -> [Step] {
        var entry = PendingMutation(type: .put, id: UUID(), baseVersion: 0)
        return events.map { event in
            switch event {
            case .send(let id): entry.send(as: id)
            case .answerLost: entry.answerLost()
            case .reject(let rejection): entry.reject(rejection)
            case .reopen: entry.reopen()
            }
            return Step(state: entry.state, mutationId: entry.mutationId, rejection: entry.rejection?.reason)
        }
    }

    private let invalid = MutationRejection(reason: "invalid_amount", field: "amount", message: "bad")

    @Test func sentThenAnswerLostThenSentAgainAfterAGap() {
        #expect(run([.send(7), .answerLost, .reopen, .send(9)]) == [
            Step(state: .sent, mutationId: 7), Step(state: .unknown, mutationId: 7),
            Step(state: .unsent, mutationId: nil), Step(state: .sent, mutationId: 9),
        ])
    }

    @Test func aRejectionIsKeptUntilTheEntryIsReopened() {
        #expect(run([.send(1), .reject(invalid), .reopen]) == [
            Step(state: .sent, mutationId: 1), Step(state: .rejected, mutationId: 1, rejection: "invalid_amount"),
            Step(state: .unsent, mutationId: nil, rejection: nil),
        ])
    }

    @Test func tooLargeIsRejectedUnnumberedAndSentOnceItFits() {
        #expect(run([.reject(.tooLarge(bytes: 2000, limit: 1000)), .send(3)]) == [
            Step(state: .rejected, mutationId: nil, rejection: "too_large"), Step(state: .sent, mutationId: 3, rejection: nil),
        ])
    }
}
