import ExpenseCore
import ExpenseProtocol
import Foundation

/// The client's offline operations on its local store: add, edit, delete, look up by id prefix, list, total,
/// import. Every change is validated by ``ExpenseCore/ExpenseValidator`` and written, together with its
/// queue entry, in one ``ExpenseStore/write(_:)``.
///
/// The local view of an expense is always its server copy with its queue entries applied in order
/// (``refresh(_:in:)``); the sync code (`LocalLedger+Sync.swift`) keeps it so.
package final class LocalLedger {
    /// The fewest characters of an id accepted as a prefix, like git's short hashes.
    package static let minimumPrefixLength = 4

    package let store: any ExpenseStore

    package init(store: any ExpenseStore) {
        self.store = store
    }

    /// The default currency: the one the person set (`config set currency`), else the synced ledger's
    /// (`hello`'s `currency`), else USD.
    package func defaultCurrency() throws -> Currency {
        try defaultCurrencySource().currency
    }

    /// Where the default currency comes from.
    package enum CurrencySource: Sendable, Equatable {
        /// Set by the person (`expense config set currency`).
        case configured(Currency)
        /// The currency of the ledger this cache syncs with.
        case ledger(Currency)
        /// Neither: USD.
        case fallback

        /// The currency itself.
        package var currency: Currency {
            switch self {
            case .configured(let currency), .ledger(let currency): currency
            case .fallback: .usd
            }
        }
    }

    /// The default currency and where it comes from.
    package func defaultCurrencySource() throws -> CurrencySource {
        if let set = try store.metaValue(.currency).flatMap({ Currency(code: $0) }) { return .configured(set) }
        if let ledger = try store.metaValue(.ledgerCurrency).flatMap({ Currency(code: $0) }) { return .ledger(ledger) }
        return .fallback
    }

    /// The ledger's own currency, the one a conversion may go through (``ExpenseCore/RateTable``): the synced
    /// ledger's (`hello`'s `currency`), as the daemon converts, else the default currency of a copy that never
    /// synced.
    package func ledgerCurrency() throws -> Currency {
        if let ledger = try store.metaValue(.ledgerCurrency).flatMap({ Currency(code: $0) }) { return ledger }
        return try defaultCurrency()
    }

    /// Sets the default currency.
    package func setDefaultCurrency(_ currency: Currency) throws {
        try store.setMetaValue(currency.code, for: .currency)
    }

    /// Validates `draft` (a new id is made when it has none) and stores it with a queued `put` of every field.
    /// - Throws: ``ExpenseCore/ValidationError``, ``StoreError``.
    @discardableResult
    package func add(_ draft: ExpenseDraft) throws -> Expense {
        try add([draft])[0]
    }

    /// Validates every draft, then stores them all in one transaction, or none if any is invalid.
    @discardableResult
    package func add(_ drafts: [ExpenseDraft]) throws -> [Expense] {
        let expenses = try drafts.map { draft in
            var draft = draft
            if draft.id == nil { draft.id = .value(UUID()) }
            return try ExpenseValidator.validate(draft)
        }
        try insert(expenses)
        return expenses
    }

    /// Stores already-validated new expenses in one transaction, each with a queued `put`.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` (nothing stored), ``StoreError``.
    package func insert(_ expenses: [Expense]) throws {
        try ensureWritable()
        try store.write { transaction in try insert(expenses, in: transaction) }
    }

    /// ``insert(_:)`` inside `transaction`, after the daemon's overflow rule (``checkTotals(adding:removing:)``).
    func insert(_ expenses: [Expense], in transaction: any StoreTransaction) throws {
        try checkTotals(adding: expenses)
        for expense in expenses {
            try checkMembers(of: expense, replacing: nil)
            var fields = expense.draft
            fields.id = nil
            try transaction.putRecord(LocalRecord(expense: expense))
            try transaction.appendPending(PendingMutation(type: .put, id: expense.id, baseVersion: 0, fields: fields))
        }
    }

    /// The live record whose id starts with `prefix` (at least ``minimumPrefixLength`` characters, any case).
    /// - Throws: ``ExpenseCore/ValidationError/invalidId(_:)`` when no id can start so (`zzzz`),
    ///   ``StoreError/idPrefixTooShort(_:)``, ``StoreError/unknownId(_:)``, ``StoreError/ambiguousId(_:matches:)``.
    package func find(_ prefix: String) throws -> LocalRecord {
        guard UUIDText.isPossiblePrefix(prefix) else { throw ValidationError.invalidId(prefix) }
        let wanted = prefix.lowercased()
        guard wanted.count >= Self.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let found = try store.records(idPrefix: wanted, limit: 5)
        switch found.count {
        case 0: throw StoreError.unknownId(prefix)
        case 1: return found[0]
        default: throw StoreError.ambiguousId(prefix, matches: found.map { String($0.expense.idString.prefix(8)) })
        }
    }

    /// Applies the non-`nil` fields of `changes` to `record`, validates the result, and stores it with a
    /// queued `put` carrying only the fields that really changed. Nothing is queued when nothing changed.
    /// - Throws: ``ExpenseCore/ValidationError``, ``StoreError``.
    @discardableResult
    package func edit(_ record: LocalRecord, changes: ExpenseDraft) throws -> Expense {
        try edit(record, changes: changes) { _, _ in }
    }

    /// ``edit(_:changes:)`` that also runs `alongside` (with the edited expense) in the change's transaction.
    func edit(_ record: LocalRecord, changes: ExpenseDraft,
              alongside: (_ updated: Expense, _ transaction: any StoreTransaction) throws -> Void) throws -> Expense {
        var changes = changes
        changes.id = nil
        let updated = try ExpenseValidator.validate(record.expense.draft.merging(changes))
        let changed = Self.difference(from: record.expense, to: updated)
        guard changed != ExpenseDraft() else { return record.expense }
        try ensureWritable()
        try checkMembers(of: updated, replacing: record.expense)
        if changed.amount != nil || changed.currency != nil { try checkTotals(adding: [updated], removing: record.expense) }
        try store.write { transaction in
            try stage(PendingMutation(type: .put, id: record.id, baseVersion: 0, fields: changed), in: transaction)
            try alongside(updated, transaction)
        }
        return updated
    }

    /// Marks `record` deleted and queues a `delete` (or, for an expense the daemon never saw, forgets its
    /// queued creation).
    package func delete(_ record: LocalRecord) throws {
        try delete(record) { _ in }
    }

    /// ``delete(_:)`` that also runs `alongside` in the change's transaction.
    func delete(_ record: LocalRecord, alongside: (any StoreTransaction) throws -> Void) throws {
        try ensureWritable()
        try store.write { transaction in
            try stage(PendingMutation(type: .delete, id: record.id, baseVersion: 0), in: transaction)
            try alongside(transaction)
        }
    }

    /// The role of the cache's token as the last `hello` reported it (`nil`: not synced yet, or a daemon older
    /// than roles).
    package func tokenRole() throws -> TokenRole? {
        try store.metaValue(.tokenRole).flatMap(TokenRole.init(rawValue:))
    }

    /// The name of the cache's token as the last `hello` reported it.
    package func tokenName() throws -> String? { try store.metaValue(.tokenName) }

    /// Refuses a local change on a viewer's cache before anything is stored or queued (its push would be
    /// −32006 `forbidden`): every command that queues a change (add, edit, delete, import, resolve) passes here.
    /// - Throws: ``ReadOnlyLedgerError``.
    package func ensureWritable() throws {
        guard let role = try tokenRole(), !role.mayWrite else { return }
        throw ReadOnlyLedgerError(tokenName: try tokenName())
    }

    /// The live expenses passing `filter`, by date.
    package func list(_ filter: ExpenseFilter = ExpenseFilter()) throws -> [Expense] {
        let expenses = try store.expenses(matching: filter)
        // The stores select by day and category; the tags are checked here, for every store alike.
        return filter.tags.isEmpty ? expenses : expenses.filter(filter.hasTags)
    }

    /// Calls `body` with each listed expense in turn, without holding the listing in memory (SQLite store).
    package func forEach(_ filter: ExpenseFilter = ExpenseFilter(), _ body: (Expense) throws -> Void) throws {
        if filter.tags.isEmpty { return try store.forEachExpense(matching: filter, body) }
        try store.forEachExpense(matching: filter) { expense in if filter.hasTags(expense) { try body(expense) } }
    }

    /// Totals per currency (and per group) of the live expenses the query covers, with the core's aggregator.
    /// With `tags`, only the expenses that have every one of them, added expense by expense (the store's
    /// buckets do not know the tags).
    /// - Throws: ``LedgerLimitError/summaryOverflow(currency:)`` naming the currency, ``StoreError``.
    package func summary(_ query: SummaryQuery, tags: [String] = []) throws -> Summary {
        var aggregator = Aggregator(query: query)
        if !tags.isEmpty {
            let filter = ExpenseFilter(from: query.from, to: query.to, category: query.category, tags: tags)
            try forEach(filter) { expense in
                do {
                    try aggregator.add(expense)
                } catch ValidationError.amountOverflow {
                    throw LedgerLimitError.summaryOverflow(currency: expense.currency)
                }
            }
            return aggregator.summary
        }
        for bucket in try store.buckets(matching: ExpenseFilter(from: query.from, to: query.to, category: query.category)) {
            do {
                try aggregator.add(amount: bucket.amount, count: bucket.count, currency: bucket.currency,
                                   category: bucket.category, date: bucket.date)
            } catch ValidationError.amountOverflow {
                throw LedgerLimitError.summaryOverflow(currency: bucket.currency)
            }
        }
        return aggregator.summary
    }

    /// How many local changes are waiting to be synced (so totals can say they include unsynced changes).
    package func pendingCount() throws -> Int { try store.pendingCount() }

    // MARK: - The queue

    /// The fields of `after` that differ from `before` (`nil` where equal), text compared by its bytes
    /// (``ExpenseCore/ExactText``).
    ///
    /// Money is one value (Protocol.md §7.4): when the amount or the currency differs, both are given, so a
    /// queued change always carries the person's whole (amount, currency) pair. The local view, which lays
    /// queued fields over the server's copy, then never shows the server's digits with a local currency or
    /// the other way round, and `resolve --mine` re-submits the pair the person meant.
    static func difference(from before: Expense, to after: Expense) -> ExpenseDraft {
        var draft = ExpenseDraft()
        for field in ExpenseField.values where !field.same(before, after) {
            for member in field.conflictGroup { member.copy(from: after, to: &draft) }
        }
        return draft
    }

    /// Queues a local change of `change.id` (its `baseVersion` is ignored) and refreshes the local view.
    ///
    /// Merging keeps at most one unsent entry per expense: put + put is one put of the union of the changed
    /// fields (the later value winning); a delete after a creation the daemon never received drops both; a
    /// delete after an unsent edit replaces it. An entry already numbered (sent) is never changed: the new
    /// change is appended, based on the same version, and rebased when the daemon answers. A materialised
    /// occurrence's create (``PendingMutation/ifAbsent``) is never merged into nor dropped: a change of the
    /// occurrence is appended after it, based on version 1, so another machine's create of the same occurrence
    /// never hides it and a delete is never lost.
    ///
    /// A delete of an expense whose conflict is open supersedes the conflicting edit: the conflict is closed and
    /// the delete is based on the server's version (the conflict's `theirs`, which the local view shows), so it is
    /// a conflict again only if the server changed since.
    ///
    /// Every kind of record goes through here (``PendingMutation/kind``): a budget's, rule's or setting's change
    /// merges, queues and refreshes exactly as an expense's does.
    func stage(_ change: PendingMutation, in transaction: any StoreTransaction) throws {
        if change.type == .delete {
            if change.kind != .expense {
                try dataTables(transaction).removeDataConflict(id: change.id)
            } else if try transaction.conflict(id: change.id) != nil {
                try transaction.removeConflict(id: change.id)
            }
        }
        let entries = try transaction.pending(for: change.id)
        // A materialised occurrence's create absorbs nothing (PendingMutation.ifAbsent): the change goes after it.
        // Nor does a member's create that other changes follow (they may name the member as it was then: a split
        // made before the member left stays valid only if the daemon sees the leaving after it).
        var keepsItsPlace = false
        if change.kind == .member, let last = entries.last, last.type == .put, last.baseVersion == 0 {
            keepsItsPlace = try !transaction.pending(after: last.position, limit: 1).isEmpty
        }
        if var last = entries.last, !last.ifAbsent, !keepsItsPlace, last.state == .unsent || last.state == .rejected {
            if last.type == .put, change.type == .delete, entries.count == 1, last.baseVersion == 0,
               try serverVersion(of: change, in: transaction) == nil {
                // A create the daemon never received, deleted: neither is sent.
                try transaction.removePending(position: last.position)
                try refresh(change.id, kind: change.kind, in: transaction)
                return
            }
            last.absorb(change)
            last.reopen()
            try transaction.updatePending(last)
        } else {
            var entry = change
            entry.position = 0
            entry.reopen()
            // After an occurrence's create: version 1, the occurrence as the rule made it, which is what the person
            // changed; the daemon then checks the change against whatever another machine did to it since.
            // After a create still queued, version 1 likewise: the version that create makes.
            entry.baseVersion = try entries.last.map { $0.ifAbsent || (keepsItsPlace && $0.baseVersion == 0) ? 1 : $0.baseVersion }
                ?? serverVersion(of: change, in: transaction) ?? 0
            try transaction.appendPending(entry)
        }
        try refresh(change.id, kind: change.kind, in: transaction)
    }

    /// The version of the server's copy of the record `change` changes; `nil` when the daemon has never had it.
    func serverVersion(of change: PendingMutation, in transaction: any StoreTransaction) throws -> Int64? {
        change.kind == .expense ? try transaction.serverCopy(id: change.id)?.version
            : try dataTables(transaction).dataServerCopy(id: change.id)?.version
    }

    /// Recomputes the local view of `id`: its server copy with its queue entries applied in order. The view is
    /// rewritten whenever it differs, text by its bytes (``Expense``'s `==`), so a pulled record that differs
    /// only in normalisation replaces it.
    ///
    /// - Parameter kind: the record's kind; `nil` when the caller does not know it (found from the queue and
    ///   the tables of the other kinds).
    func refresh(_ id: UUID, kind: RecordKind? = nil, in transaction: any StoreTransaction) throws {
        let other: RecordKind? = if let kind { kind == .expense ? nil : kind } else { try transaction.dataKind(of: id) }
        if let other {
            try refreshData(id, kind: other, in: transaction)
            return
        }
        let copy = try transaction.serverCopy(id: id)
        let entries = try transaction.pending(for: id)
        let existing = try transaction.record(id: id)
        var draft = copy?.expense.draft ?? existing?.expense.draft ?? ExpenseDraft(id: .value(id), currency: nil, date: nil)
        var deleted = copy?.deleted ?? (entries.isEmpty ? true : false)
        for entry in entries {
            switch entry.type {
            case .put:
                // An occurrence's create leaves a record the daemon holds as it is (Protocol.md §10.4).
                if entry.ifAbsent, copy != nil { continue }
                draft = draft.merging(entry.fields)
                deleted = false
            case .delete:
                deleted = true
            }
        }
        guard let expense = try? ExpenseValidator.validateStored(draft) else {
            // Incomplete (a server copy never arrived for an edit): keep what is shown, as deleted if nothing is left.
            if var existing, entries.isEmpty, copy == nil {
                existing.deleted = true
                try transaction.putRecord(existing)
            }
            return
        }
        let record = LocalRecord(expense: expense, baseVersion: copy?.version ?? 0, deleted: deleted)
        if existing != record { try transaction.putRecord(record) }
    }
}
