import ExpenseCore
import ExpenseProtocol
import Foundation

/// A local change waiting in the durable queue (the outbox) until the daemon has answered for it.
///
/// - Important: an entry is written in the same transaction as the local change it describes, so an offline
///   change survives a crash: either both are on disk or neither is.
/// - Important: at most one *unsent* entry per record, of any kind: a new local change merges into it (see
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
        /// The daemon rejected it; kept and shown until the person changes, discards or resolves the record.
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
    /// The kind of record it changes (Protocol.md §10): every kind goes through this one queue.
    package var kind: RecordKind
    /// The record it changes.
    package var id: UUID
    /// The server version the change was made against (0: the record is new).
    package var baseVersion: Int64
    /// An expense's `put`: only the fields that changed (`nil` fields did not); `id` is always `nil` here.
    /// For `delete` and for the other kinds: empty.
    package var fields: ExpenseDraft
    /// A budget's, rule's or setting's `put`: the fields that changed (every field of a create or a restore),
    /// money sent whole (Protocol.md §7.4). For `delete` and for expenses: empty.
    package var data: LedgerDataFields
    /// Why the daemon rejected it (state ``State/rejected``). Changed only by the transitions below.
    package private(set) var rejection: MutationRejection?
    /// A materialised recurring occurrence's create (Protocol.md §10.4): sent with `"ifAbsent":true`, so the
    /// daemon leaves an id it already has (another machine's occurrence, edited or deleted since) as it is.
    /// - Important: such an entry never absorbs a later local change: the change is queued after it, based on
    ///   version 1 (the occurrence as the rule made it), so the daemon checks it against every change since
    ///   (``LocalLedger``'s `stage`).
    package var ifAbsent: Bool

    package init(position: Int64 = 0, mutationId: Int64? = nil, state: State = .unsent, type: MutationType,
                 kind: RecordKind = .expense, id: UUID, baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft(),
                 data: LedgerDataFields = [:], rejection: MutationRejection? = nil, ifAbsent: Bool = false) {
        self.position = position
        self.mutationId = mutationId
        self.state = state
        self.type = type
        self.kind = kind
        self.id = id
        self.baseVersion = baseVersion
        self.fields = fields
        self.data = data
        self.rejection = rejection
        self.ifAbsent = ifAbsent
    }

    /// The wire mutation (needs a `mutationId`).
    package func mutation(mutationId: Int64) -> Mutation {
        guard kind == .expense else {
            return Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion,
                            fields: type == .put ? data.mapValues(LedgerDataJSON.json) : nil, kind: kind)
        }
        return Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion,
                        fields: type == .put ? ExpenseFields.json(from: fields, omittingEmpty: baseVersion == 0) : nil, ifAbsent: ifAbsent && type == .put && baseVersion == 0)
    }

    /// The names of the fields a `put` sets (an expense's by ``ExpenseField`` name); empty for a delete.
    package var setFieldNames: Set<String> {
        guard type == .put else { return [] }
        guard kind == .expense else { return Set(data.keys) }
        return Set(ExpenseFields.names(in: fields))
    }

    /// Folds a later local change of the same record into this one: the later fields win, a later delete
    /// supersedes, a later put after a delete is that put. Base, number and state are left to the caller.
    package mutating func absorb(_ later: PendingMutation) {
        switch later.type {
        case .delete:
            type = .delete
            fields = ExpenseDraft()
            data = [:]
        case .put:
            if type == .put {
                fields = fields.merging(later.fields)
                data.merge(later.data) { _, new in new }
            } else {
                fields = later.fields
                data = later.data
            }
            type = .put
        }
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
