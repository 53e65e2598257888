import ExpenseCore
import ExpenseProtocol
import Foundation

/// A local change waiting to be pushed to the daemon, kept in the store's durable queue.
///
/// - Important: a pending mutation is appended in the same transaction as the local change it describes,
///   so an offline change survives a crash: either both are on disk or neither is.
package struct PendingMutation: Hashable, Sendable {
    /// Per client, from 1, consecutive, never reused: the daemon's exactly-once key.
    package var mutationId: Int64
    package var type: MutationType
    /// The expense it changes.
    package var id: UUID
    /// The server version the change was made against (0: the expense is new).
    package var baseVersion: Int64
    /// For `put`: only the fields that changed (`nil` fields did not); `id` is always `nil` here.
    /// For `delete`: empty.
    package var fields: ExpenseDraft

    package init(mutationId: Int64, type: MutationType, id: UUID, baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft()) {
        self.mutationId = mutationId
        self.type = type
        self.id = id
        self.baseVersion = baseVersion
        self.fields = fields
    }
}

/// What a store writes in one ``ExpenseStore/commit(_:meta:)`` for one expense: the new local state and,
/// for a local change, the mutation to queue (the store assigns its `mutationId`).
package struct StagedChange: Hashable, Sendable {
    /// The record's new local state.
    package var record: LocalRecord
    /// The mutation to append to the pending queue; `nil` when the change comes from the server (a pull).
    package var mutation: MutationDraft?

    package init(record: LocalRecord, mutation: MutationDraft?) {
        self.record = record
        self.mutation = mutation
    }
}

/// A pending mutation before the store has numbered it.
package struct MutationDraft: Hashable, Sendable {
    package var type: MutationType
    package var baseVersion: Int64
    /// Changed fields only (see ``PendingMutation/fields``).
    package var fields: ExpenseDraft

    package init(type: MutationType, baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft()) {
        self.type = type
        self.baseVersion = baseVersion
        self.fields = fields
    }
}
