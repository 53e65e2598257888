import ExpenseCore
import ExpenseProtocol
import Foundation

/// What ``LocalLedger/discard(_:onlyRejected:)`` dropped for one record.
package struct DiscardedChange: Sendable {
    package var id: UUID
    /// The kind of the record whose changes were dropped.
    package var kind: RecordKind
    /// The queue entries dropped (unsent or rejected), in queue order.
    package var entries: [PendingMutation]
    /// The open conflict dropped with them, if any (its local side is a local change too).
    package var conflict: Conflict?
    /// An expense's local view before; `nil` for the other kinds.
    package var before: LocalRecord?
    /// An expense's local view now: the server's copy, or a deleted record when the daemon never had the expense;
    /// `nil` for the other kinds.
    package var after: LocalRecord?
    /// A budget's, rule's or setting's local view now: the server's copy (`nil` when the daemon never had it);
    /// `nil` for an expense.
    package var dataAfter: LocalDataRecord?
    /// Whether a budget's, rule's or setting's server copy here is one this cache carried over from before its
    /// one outbox (cache migration 12 made it from the local view, which held the queued values: the old cache
    /// kept no copy of the daemon's) and no sync has confirmed yet: ``dataAfter`` may still show the discarded
    /// change until the next sync brings the daemon's values.
    package var dataAwaitsSync = false
}

/// Why nothing could be discarded.
package enum DiscardError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No expense with a pending local change (or, for `onlyRejected`, a rejected one) has an id starting so.
    case nothingPending(String)
    /// The expense's change was sent and its answer is not in yet: it may already be applied, so it cannot be
    /// taken back here (run `expense sync` first).
    case inFlight(String)

    /// A stable snake_case code.
    package var code: String {
        switch self {
        case .nothingPending: "nothing_to_discard"
        case .inFlight: "change_in_flight"
        }
    }

    package var message: String {
        switch self {
        case .nothingPending(let prefix):
            "no local change waits for an expense, budget, rule or setting whose id starts with '\(prefix)'; `expense status` lists them"
        case .inFlight(let id):
            "the change of \(id) was sent and its answer is not in yet; run `expense sync`, then discard what is left"
        }
    }

    package var description: String { "\(code): \(message)" }
}

extension LocalLedger {
    /// Drops the local pending changes of the expense (or budget, rule or setting) whose id starts with `prefix`
    /// (at least ``minimumPrefixLength`` characters): its unsent and rejected queue entries and its open conflict
    /// (for a budget, rule or setting, as ``resolve(_:_:)`` with `theirs`).
    /// Nothing is sent: the server's copy is untouched, and the local view returns to it (an expense the
    /// daemon never had disappears). With `onlyRejected`, only an expense with a rejected entry qualifies.
    /// - Throws: ``DiscardError``, ``StoreError/idPrefixTooShort(_:)``, ``StoreError/ambiguousId(_:matches:)``.
    @discardableResult
    package func discard(_ prefix: String, onlyRejected: Bool = false) throws -> DiscardedChange {
        try discard([prefix], onlyRejected: onlyRejected)[0]
    }

    /// ``discard(_:onlyRejected:)`` for several expenses in one transaction: every prefix is resolved first,
    /// so one that matches nothing (or an expense in flight) leaves every expense as it was.
    package func discard(_ prefixes: [String], onlyRejected: Bool = false) throws -> [DiscardedChange] {
        let queue = try store.pendingMutations(limit: Int.max)
        var candidates = Set(queue.filter { !onlyRejected || $0.state == .rejected }.map(\.id))
        if !onlyRejected {
            candidates.formUnion(try store.conflicts().map(\.id))
            candidates.formUnion(try dataCache?.conflictDetails().map(\.id) ?? [])
        }
        var ids: [UUID] = []
        for prefix in prefixes {
            let wanted = prefix.lowercased()
            guard wanted.count >= Self.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
            let matches = candidates.filter { UUIDText.lowercased($0).hasPrefix(wanted) }
            guard let id = matches.first else { throw DiscardError.nothingPending(prefix) }
            guard matches.count == 1 else {
                throw StoreError.ambiguousId(prefix, matches: matches.map { String(UUIDText.lowercased($0).prefix(8)) }.sorted())
            }
            if !ids.contains(id) { ids.append(id) }
        }
        return try store.write { transaction in try ids.map { try discard($0, in: transaction) } }
    }

    /// Drops every expense's local changes that include a rejected entry (``discard(_:onlyRejected:)`` for each).
    package func discardRejected() throws -> [DiscardedChange] {
        let ids = try store.pendingMutations(limit: Int.max).filter { $0.state == .rejected }.map(\.id)
        var seen = Set<UUID>()
        let unique = ids.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return [] }
        return try store.write { transaction in try unique.map { try discard($0, in: transaction) } }
    }

    private func discard(_ id: UUID, in transaction: any StoreTransaction) throws -> DiscardedChange {
        let entries = try transaction.pending(for: id)
        // A sent entry may already be applied; entries after it are based on it, so they stay too.
        guard !entries.contains(where: { $0.state == .sent || $0.state == .unknown }) else {
            throw DiscardError.inFlight(UUIDText.lowercased(id))
        }
        // The kind is taken from the entries first: an expense may hold the id of a budget, rule or setting the
        // daemon refused for that reason, and it is the budget's change that is dropped, the expense untouched.
        if let kind = try transaction.dataKind(of: id, entries: entries) {
            // A daemon's copy always has a seq; the copies migration 12 carried over have 0 until a sync replaces them.
            let carriedOver = try dataTables(transaction).dataServerCopy(id: id).map { $0.seq == 0 } ?? false
            for entry in entries { try transaction.removePending(position: entry.position) }
            try dataTables(transaction).removeDataConflict(id: id)  // this machine's side of it is a local change too
            try refresh(id, kind: kind, in: transaction)
            var change = DiscardedChange(id: id, kind: kind, entries: entries, dataAfter: try dataTables(transaction).dataView(id: id))
            change.dataAwaitsSync = carriedOver
            return change
        }
        let before = try transaction.record(id: id)
        for entry in entries { try transaction.removePending(position: entry.position) }
        let conflict = try transaction.conflict(id: id)
        if conflict != nil { try transaction.removeConflict(id: id) }
        try refresh(id, kind: .expense, in: transaction)
        return DiscardedChange(id: id, kind: .expense, entries: entries, conflict: conflict, before: before,
                               after: try transaction.record(id: id))
    }
}
