import ExpenseCore
import ExpenseProtocol
import Foundation

/// Healing after the daemon's history was replaced (a restore: Protocol.md §5.7; docs/usage.md, "Sync").
///
/// The rule. The daemon says where the new history began (`epochCursor`; for a history rewound without a new
/// epoch, its head): records at or below that point are as the history this cache knew had them. So a server copy
/// this cache holds with a `seq` above the point is a state the daemon had acknowledged and may have lost ("lost
/// copy"); one at or below it is in the restored history. The heal pulls everything from 0 and, per record:
///
/// - no lost copy: the daemon's record becomes the server copy (whatever its version: versions of the new history
///   may repeat old numbers);
/// - a lost copy equal to the daemon's record (fields and deletion): nothing to do (another client healed it);
/// - a lost copy and a daemon record at or below the point (unchanged since the restore): the change from that
///   record to the lost copy is queued, based on the record's version, under any local change of the expense;
/// - a lost copy and a daemon record above the point that differs: both histories changed it; a conflict, shown;
/// - a lost copy the daemon does not have at all: it is queued as a create (and, for a deleted one, a delete).
///
/// Queued heal changes carry the same ids and values on every client that holds them, so several healing clients
/// do not double anything: a create or put the daemon already holds is `applied` without a new version
/// (Protocol.md §7.3, §7.4).
extension LocalLedger {
    /// The heal point noted by ``beginSession(_:remote:)``, or `nil` when no heal is due.
    package func healPoint() throws -> Int64? { try store.metaValue(.healPoint).flatMap { Int64($0) } }

    /// Notes a heal from `point` (the daemon refused the cursor: `invalid_cursor`, `cursor_expired`).
    package func requireHeal(from point: Int64) throws {
        try store.write { transaction in
            var binding = try LedgerBinding.load(from: transaction)
            binding.heal(from: point)
            try binding.save(to: transaction)
        }
    }

    /// The server copies the daemon may have lost (`seq` above `point`), by id.
    package func lostCopies(above point: Int64) throws -> [UUID: Record] {
        try store.write { transaction in
            Dictionary(try transaction.serverCopies(seqAbove: point).map { ($0.expense.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Applies one page of the heal's pull from 0 (see the type's rule), in one transaction.
    /// - Returns: the conflicts it found.
    package func heal(pulled changes: [Record], lost: inout [UUID: Record], point: Int64, cursor: Int64) throws -> Int {
        var found = 0
        var remaining = lost
        try store.write { transaction in
            for record in changes {
                let id = record.expense.id
                guard let copy = remaining.removeValue(forKey: id) else {
                    if try transaction.serverCopy(id: id) != record { try adopt(record, in: transaction) }
                    continue
                }
                if Self.sameContent(copy, record) || (copy.deleted && record.deleted) {
                    try adopt(record, in: transaction)
                } else if record.seq <= point {
                    try transaction.putServerCopy(record)
                    try queueHeal(to: copy, over: record, in: transaction)
                } else {
                    try transaction.putServerCopy(record)
                    try divergence(copy, record, in: transaction)
                    found += 1
                }
                try refresh(id, kind: .expense, in: transaction)
            }
            try transaction.setMetaValue(String(cursor), for: .pullCursor)
        }
        lost = remaining
        return found
    }

    /// After the heal's pull: every lost copy the daemon does not have is queued again (a create; then a delete for a
    /// deleted one), and the heal is done.
    package func finishHeal(absent: [UUID: Record]) throws {
        try store.write { transaction in
            for copy in absent.values.sorted(by: { $0.seq < $1.seq }) {
                // Version 0: the daemon holds nothing of it (what a record never sent has).
                try transaction.putServerCopy(Record(expense: copy.expense, version: 0, seq: 0, deleted: true))
                try queueHeal(to: copy, over: nil, in: transaction)
                try refresh(copy.expense.id, kind: .expense, in: transaction)
            }
            var binding = try LedgerBinding.load(from: transaction)
            binding.healed()
            try binding.save(to: transaction)
        }
    }

    private static func sameContent(_ a: Record, _ b: Record) -> Bool { a.deleted == b.deleted && a.expense == b.expense }

    private func adopt(_ record: Record, in transaction: any StoreTransaction) throws {
        try transaction.putServerCopy(record)
        if var conflict = try transaction.conflict(id: record.expense.id) {
            conflict.theirs = record
            try transaction.putConflict(conflict)
        }
        try refresh(record.expense.id, kind: .expense, in: transaction)
    }

    /// The changes that turn `base` (the daemon's record; `nil`: it has none) into `target` (a lost copy), in order.
    private static func steps(to target: Record, over base: Record?) -> [(MutationType, ExpenseDraft)] {
        var full = target.expense.draft
        full.id = nil
        switch (base, target.deleted) {
        case (nil, false): return [(.put, full)]
        case (nil, true): return [(.put, full), (.delete, ExpenseDraft())]
        case (let base?, false) where base.deleted: return [(.put, full)]
        case (let base?, false):
            let changed = difference(from: base.expense, to: target.expense)
            return changed == ExpenseDraft() ? [] : [(.put, changed)]
        case (let base?, true): return base.deleted ? [] : [(.delete, ExpenseDraft())]
        }
    }

    /// Queues what the daemon must receive to hold `target` again, based on `base`'s version; a local change of the
    /// expense still unsent (or rejected) goes on top of it, and entries whose answer was lost are re-based too.
    private func queueHeal(to target: Record, over base: Record?, in transaction: any StoreTransaction) throws {
        let id = target.expense.id
        let baseVersion = base?.version ?? 0
        var steps = Self.steps(to: target, over: base)
        let entries = try transaction.pending(for: id)
        for var entry in entries where entry.state == .unknown {
            entry.baseVersion = baseVersion
            try transaction.updatePending(entry)
        }
        if let last = entries.last, last.state == .unsent || last.state == .rejected {
            switch last.type {
            case .put:
                if let (type, fields) = steps.last, type == .put {
                    steps[steps.count - 1] = (.put, fields.merging(last.fields))
                } else {
                    var full = target.expense.draft
                    full.id = nil
                    steps.append((.put, target.deleted || base?.deleted != false ? full.merging(last.fields) : last.fields))
                }
            case .delete:
                if steps.last?.0 != .delete { steps.append((.delete, ExpenseDraft())) }
            }
            try transaction.removePending(position: last.position)
        }
        for (type, fields) in steps {
            try transaction.appendPending(PendingMutation(type: type, id: id, baseVersion: baseVersion, fields: fields))
        }
    }

    /// Both histories changed the expense: the lost state (with any unsent local change on top) is mine, the
    /// daemon's record theirs.
    private func divergence(_ lost: Record, _ current: Record, in transaction: any StoreTransaction) throws {
        let id = lost.expense.id
        var full = lost.expense.draft
        full.id = nil
        var mine: MutationType = lost.deleted ? .delete : .put
        var fields = lost.deleted ? ExpenseDraft() : (current.deleted ? full : Self.difference(from: current.expense, to: lost.expense))
        for entry in try transaction.pending(for: id) {
            if entry.state == .unsent || entry.state == .rejected {
                if entry.type == .put {
                    fields = (mine == .delete ? full : fields).merging(entry.fields)
                    mine = .put
                } else {
                    mine = .delete
                    fields = ExpenseDraft()
                }
                try transaction.removePending(position: entry.position)
            } else {
                var rebased = entry
                rebased.baseVersion = current.version
                try transaction.updatePending(rebased)
            }
        }
        try transaction.putConflict(Conflict(id: id, mine: mine, mineBaseVersion: current.version, mineFields: fields, theirs: current))
    }
}
