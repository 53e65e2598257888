import ExpenseCore
import Foundation

/// Where the client keeps its expenses, its pending mutations and its settings.
///
/// The code that validates and totals (``LocalLedger``) only sees this protocol, so the three implementations
/// (in memory, a JSON file, SQLite) are interchangeable; one contract test suite runs against all three.
///
/// - Important: A store is used by one owner at a time (one command, or later the sync engine's actor);
///   it is not `Sendable`.
package protocol ExpenseStore: AnyObject {
    /// The file (or `:memory:`) behind the store, for messages.
    var location: String { get }

    /// The record with this id, deleted or not.
    func record(id: UUID) throws -> LocalRecord?

    /// Up to `limit` live (not deleted) records whose lower-case id starts with `idPrefix`.
    func records(idPrefix: String, limit: Int) throws -> [LocalRecord]

    /// The live expenses passing `filter`, by date, then in the order they were first stored.
    func expenses(matching filter: ExpenseFilter) throws -> [Expense]

    /// How many live expenses there are.
    func liveCount() throws -> Int

    /// Writes every change's new local state, appends each change's mutation (numbered from
    /// ``StoreMetaKey/nextMutationId``) to the pending queue, and sets `meta`, all in one transaction:
    /// either everything is stored or nothing is.
    /// - Returns: the pending mutations appended, in order.
    @discardableResult
    func commit(_ changes: [StagedChange], meta: [StoreMetaKey: String?]) throws -> [PendingMutation]

    /// The oldest `limit` pending mutations, by `mutationId`.
    func pendingMutations(limit: Int) throws -> [PendingMutation]

    /// How many mutations are pending.
    func pendingCount() throws -> Int

    /// Drops every pending mutation with `mutationId <= through` (the daemon has consumed them).
    func removePendingMutations(through mutationId: Int64) throws

    /// A setting, or `nil`.
    func metaValue(_ key: StoreMetaKey) throws -> String?
}

extension ExpenseStore {
    /// Sets (or, with `nil`, removes) one setting.
    package func setMetaValue(_ value: String?, for key: StoreMetaKey) throws {
        try commit([], meta: [key: value])
    }

    /// The client's UUID.
    package func clientId() throws -> UUID? {
        try metaValue(.clientId).flatMap(UUID.init(uuidString:))
    }
}
