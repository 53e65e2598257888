import ExpenseCore
import ExpenseProtocol
import Foundation

/// What a cache knows of the ledger it holds, and what each `hello` makes of it (Protocol.md §5.7): a state and
/// pure transitions, kept in the store's settings (``load(from:)``, ``save(to:)``).
///
/// - `unbound` → the first `hello` binds the cache: to the reported `ledgerId` (and epoch), else (a daemon without
///   ids) to the address.
/// - `address` (bound before ledger ids) → accepted at that address only, where it becomes `ledger` (epoch unknown).
/// - `ledger` → accepted at any address reporting that id (a daemon without ids: the last address only); a new
///   epoch, or a head below the cursor, makes a heal due from the point where the histories part.
/// - A heal stays due (the lower point wins) until ``healed()``.
package struct LedgerBinding: Hashable, Sendable {
    /// Which ledger the cache holds.
    package enum Identity: Hashable, Sendable {
        /// Never synced.
        case unbound
        /// Synced before ledger ids existed: bound by its `server/ledger` text.
        case address(String)
        /// Bound to a ledger id; `epoch` is the history pulled from (`nil`: not known yet).
        case ledger(id: UUID, epoch: UUID?)
    }

    package var identity: Identity
    /// The `server/ledger` last synced with.
    package var lastAddress: String?
    /// The cache's pull cursor.
    package var cursor: Int64
    /// Set while a heal is due: the point at or below which the daemon's records are the history this cache knew.
    package var healPoint: Int64?

    package init(identity: Identity = .unbound, lastAddress: String? = nil, cursor: Int64 = 0, healPoint: Int64? = nil) {
        self.identity = identity
        self.lastAddress = lastAddress
        self.cursor = cursor
        self.healPoint = healPoint
    }

    /// The binding after a successful `hello` from `remote`.
    /// - Throws: ``SyncError/otherLedger(synced:asked:)`` when it is another ledger (the binding is unchanged).
    package func greeted(_ hello: HelloResult, at remote: String) throws(SyncError) -> LedgerBinding {
        var next = self
        let reported = hello.identity
        switch identity {
        case .unbound:
            next.identity = reported.map { .ledger(id: $0.ledgerId, epoch: $0.epoch) } ?? .address(remote)
            next.lastAddress = remote
            next.cursor = 0
            next.healPoint = nil
            return next
        case .address(let bound):
            guard bound == remote else { throw .otherLedger(synced: bound, asked: remote) }
            if let reported { next.identity = .ledger(id: reported.ledgerId, epoch: nil) }
        case .ledger(let id, _):
            if let reported {
                guard reported.ledgerId == id else {
                    throw .otherLedger(synced: Self.describe(lastAddress, id), asked: Self.describe(remote, reported.ledgerId))
                }
            } else if lastAddress != remote {
                throw .otherLedger(synced: Self.describe(lastAddress, id), asked: remote)
            }
        }
        next.lastAddress = remote
        if let reported {
            if case .ledger(_, let epoch?) = identity, epoch != reported.epoch { next.heal(from: reported.epochCursor) }
            next.identity = .ledger(id: reported.ledgerId, epoch: reported.epoch)
        }
        if cursor > hello.cursor { next.heal(from: hello.cursor) }
        return next
    }

    /// Makes a heal due from `point` (the lower point wins over one already due).
    package mutating func heal(from point: Int64) {
        healPoint = max(0, min(healPoint ?? point, point))
    }

    /// The heal is done.
    package mutating func healed() { healPoint = nil }

    /// `server/ledger (ledger id …)` for messages.
    package static func describe(_ address: String?, _ id: UUID) -> String {
        (address.map { $0 + " " } ?? "") + "(ledger id \(UUIDText.lowercased(id)))"
    }

    // MARK: - In the store's settings

    /// The binding as stored (`synced_ledger`, `synced_ledger_id`, `ledger_epoch`, `pull_cursor`, `heal_point`).
    package static func load(from transaction: any StoreTransaction) throws -> LedgerBinding {
        let address = try transaction.metaValue(.syncedLedger)
        let identity: Identity
        if let id = try transaction.metaValue(.syncedLedgerId).flatMap(UUIDText.parse) {
            identity = .ledger(id: id, epoch: try transaction.metaValue(.ledgerEpoch).flatMap(UUIDText.parse))
        } else if let address {
            identity = .address(address)
        } else {
            identity = .unbound
        }
        return LedgerBinding(identity: identity, lastAddress: address,
                             cursor: try transaction.metaValue(.pullCursor).flatMap { Int64($0) } ?? 0,
                             healPoint: try transaction.metaValue(.healPoint).flatMap { Int64($0) })
    }

    /// Stores the binding.
    package func save(to transaction: any StoreTransaction) throws {
        try transaction.setMetaValue(lastAddress, for: .syncedLedger)
        switch identity {
        case .unbound, .address:
            try transaction.setMetaValue(nil, for: .syncedLedgerId)
            try transaction.setMetaValue(nil, for: .ledgerEpoch)
        case .ledger(let id, let epoch):
            try transaction.setMetaValue(UUIDText.lowercased(id), for: .syncedLedgerId)
            try transaction.setMetaValue(epoch.map(UUIDText.lowercased), for: .ledgerEpoch)
        }
        try transaction.setMetaValue(String(cursor), for: .pullCursor)
        try transaction.setMetaValue(healPoint.map(String.init), for: .healPoint)
    }
}
