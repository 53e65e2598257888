import ExpenseCore
import ExpenseProtocol
import Foundation

/// A local change waiting to be pushed to the daemon, kept in the store's durable queue.
///
/// - Important: a pending mutation is appended in the same transaction as the local change it describes,
///   so an offline change survives a crash: either both are on disk or neither is.
public struct PendingMutation: Hashable, Sendable {
    /// Per client, from 1, consecutive, never reused: the daemon's exactly-once key.
    public var mutationId: Int64
    public var type: MutationType
    /// The expense it changes.
    public var id: UUID
    /// The server version the change was made against (0: the expense is new).
    public var baseVersion: Int64
    /// For `put`: only the fields that changed (`nil` fields did not); `id` is always `nil` here.
    /// For `delete`: empty.
    public var fields: ExpenseDraft

    public init(mutationId: Int64, type: MutationType, id: UUID, baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft()) {
        self.mutationId = mutationId
        self.type = type
        self.id = id
        self.baseVersion = baseVersion
        self.fields = fields
    }
}

/// What a store writes in one ``ExpenseStore/commit(_:meta:)`` for one expense: the new local state and,
/// for a local change, the mutation to queue (the store assigns its `mutationId`).
public struct StagedChange: Hashable, Sendable {
    /// The record's new local state.
    public var record: LocalRecord
    /// The mutation to append to the pending queue; `nil` when the change comes from the server (a pull).
    public var mutation: MutationDraft?

    public init(record: LocalRecord, mutation: MutationDraft?) {
        self.record = record
        self.mutation = mutation
    }
}

/// A pending mutation before the store has numbered it.
public struct MutationDraft: Hashable, Sendable {
    public var type: MutationType
    public var baseVersion: Int64
    /// Changed fields only (see ``PendingMutation/fields``).
    public var fields: ExpenseDraft

    public init(type: MutationType, baseVersion: Int64, fields: ExpenseDraft = ExpenseDraft()) {
        self.type = type
        self.baseVersion = baseVersion
        self.fields = fields
    }
}
