import ExpenseCore
import ExpenseProtocol
import Foundation

/// A local change waiting in the durable queue (the outbox) until the daemon has answered for it.
///
/// - Important: an entry is written in the same transaction as the local change it describes, so an offline
///   change survives a crash: either both are on disk or neither is.
/// - Important: at most one *unsent* entry per expense: a new local change merges into it (see
///   ``LocalLedger``). A `mutationId` is given only when the entry is about to be pushed, persisted before the
///   push is written to the socket; from then on the entry is never changed, only resolved by the daemon's
///   answer, so a lost answer is recovered with `hello`'s `lastMutationId`.
package struct PendingMutation: Hashable, Sendable {
    /// Where the entry is in its life.
    package enum State: String, Sendable, Hashable {
        /// Not given to the daemon yet; may still absorb later local changes.
        case unsent
        /// Numbered and pushed (or about to be); the answer has not been applied yet.
        case sent
        /// The daemon consumed its id but the answer was lost: checked against the pulled record.
        case unknown
        /// The daemon rejected it; kept and shown until the person changes or resolves the expense.
        case rejected
    }

    /// Queue order, given by the store (0 before the entry is stored).
    package var position: Int64
    /// Per client, from 1, consecutive: the daemon's exactly-once key; `nil` while unsent.
    /// Changed only by the transitions at the end of this type.
    package private(set) var mutationId: Int64?
    /// Changed only by the transitions below.
    package private(set) var state: State
    package var type: MutationType
    /// The expense it changes.
    package var id: UUID
    /// The server version the change was made against (0: the expense is new).
    package var baseVersion: Int64
    /// For `put`: only the fields that changed (`nil` fields did not); `id` is always `nil` here.
    /// For `delete`: empty.
    package var fields: ExpenseDraft
    /// Why the daemon rejected it (state ``State/rejected``). Changed only by the transitions below.
    package private(set) var rejection: MutationRejection?

    package init(position: Int64 = 0, mutationId: Int64? = nil, state: State = .unsent, type: MutationType, id: UUID,
                 baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft(), rejection: MutationRejection? = nil) {
        self.position = position
        self.mutationId = mutationId
        self.state = state
        self.type = type
        self.id = id
        self.baseVersion = baseVersion
        self.fields = fields
        self.rejection = rejection
    }

    /// The wire mutation (needs a `mutationId`).
    package func mutation(mutationId: Int64) -> Mutation {
        Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion,
                 fields: type == .put ? ExpenseFields.json(from: fields) : nil)
    }

    // MARK: Transitions (the entry's life cycle, in one place)
    //
    //   unsent --send(as:)--> sent --answerLost()--> unknown
    //   unsent --reject(_:)--> rejected (too large: never numbered) --send(as:)--> sent (it fits now)
    //   sent --reject(_:)--> rejected;  any --reopen()--> unsent (mutationId and rejection dropped)
    // An applied or conflicting answer removes the entry from the queue: no state.

    /// Numbers the entry `mutationId` and marks it sent (persisted before the push is written to the socket).
    /// - Important: only an unsent entry, or one rejected as too large (never numbered), is sent.
    package mutating func send(as mutationId: Int64) {
        assert(state == .unsent || (state == .rejected && rejection?.isTooLarge == true), "send from \(state)")
        self.mutationId = mutationId
        state = .sent
        rejection = nil
    }

    /// The daemon consumed the entry's id but its answer is lost (a `duplicate` without outcome, or `hello`'s
    /// `lastMutationId` covers it): settled against the pull.
    package mutating func answerLost() {
        assert(mutationId != nil && (state == .sent || state == .unknown), "answer lost from \(state)")
        state = .unknown
    }

    /// Rejected (by the daemon, or here before numbering when it is too large to send); kept and shown.
    package mutating func reject(_ rejection: MutationRejection) {
        state = .rejected
        self.rejection = rejection
    }

    /// Back to unsent, without a number or a rejection: it goes out again as the newest local intent (a
    /// `mutation_gap`, a later change folded in, a number the daemon never saw).
    package mutating func reopen() {
        state = .unsent
        mutationId = nil
        rejection = nil
    }
}
