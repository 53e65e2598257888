import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// One ledger's operations, synchronously, over a ``LedgerStore``: what the ``Ledger`` actor runs on its own
/// thread, and what the contract tests drive directly against each store.
package final class LedgerEngine {
    package let store: any LedgerStore
    package let rules: MutationRules
    /// The daemon's clock for history entries (seconds since 1970); tests set their own.
    package var clock: @Sendable () -> Int64 = { HistoryAuthor.now() }

    package init(store: any LedgerStore, currency: Currency,
                 fieldsConverter: @escaping FieldsConverter = ExpenseFields.draft(from:)) {
        self.store = store
        self.rules = MutationRules(ledgerCurrency: currency, fieldsConverter: fieldsConverter)
    }

    /// The ledger's head and this client's last consumed mutationId.
    package func hello(clientId: UUID) throws -> (cursor: Int64, lastMutationId: Int64) {
        do {
            try store.refresh()
            return (store.head, try store.lastMutationId(clientId: clientId))
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// Applies several pushes, in order, in ONE transaction (group commit): all of them are durable, or
    /// none is and the error is thrown.
    package func apply(_ pushes: [(clientId: UUID, items: [PushItem])]) throws -> [PushResult] {
        try apply(pushes.map { ($0.clientId, $0.items, nil) })
    }

    /// ``apply(_:)`` with who made each push, for its history entries (Protocol.md §5.8); the daemon's clock
    /// is read once for the group.
    package func apply(_ pushes: [(clientId: UUID, items: [PushItem], who: String?)]) throws -> [PushResult] {
        try apply(prepared: pushes.map { ($0.clientId, $0.items.map { PreparedItem($0) }, $0.who) })
    }

    /// ``apply(_:)-([(clientId:items:who:)])`` of pushes whose items were prepared (``MutationRules/prepare(_:)``,
    /// the ledger's way: ``Ledger/push(clientId:items:credential:completion:)``): the same answers and writes.
    package func apply(prepared pushes: [(clientId: UUID, items: [PreparedItem], who: String?)]) throws -> [PushResult] {
        let time = clock()
        do {
            return try store.transaction(prefetching: pushes.map(\.clientId),
                                         ids: pushes.flatMap { $0.items.compactMap { try? $0.item.decoded.get().id } }) {
                let results = try pushes.map {
                    try rules.apply(clientId: $0.clientId, prepared: $0.items, to: store, author: HistoryAuthor(who: $0.who, time: time))
                }
                // Each push's cursor is the head once the whole group is committed: nothing it reports is older.
                let head = store.head
                return results.map { PushResult(results: $0, cursor: head) }
            }
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// One push in its own transaction.
    /// - Precondition: at most ``PushRequest/maximumMutations`` items: already enforced by ``PushRequest``.
    package func push(clientId: UUID, items: [PushItem]) throws -> PushResult {
        precondition(items.count <= PushRequest.maximumMutations, "already enforced by PushRequest")
        return try apply([(clientId, items)])[0]
    }

    /// The changes after `params.since`, in seq order, as the bytes the network front sends (Protocol.md §5.3).
    /// A page with no other kind in its range (every page of a first sync but the few that hold budgets, rules or
    /// settings) is the store's page as it is (``LedgerStore/changes(since:limit:snapshot:maximumBytes:)``, cut
    /// by the line's bytes); any other page merges the store's expenses and the other kinds in seq order.
    /// - Precondition: `params.limit` is in ``PullRequest/limitRange``: already enforced by
    ///   ``PullRequest/init(params:)``, which answers any other limit `invalid_params` before it reaches a ledger.
    package func pullPage(_ params: PullRequest) throws -> EncodedPullPage {
        let head = try pullableHead(params)
        do {
            let data = params.kinds.isEmpty ? []
                : try store.dataChanges(since: params.since, limit: params.limit + 1).filter { params.kinds.contains($0.kind) }
            guard params.expenses, data.isEmpty else { return try pageWithKinds(params, data: data, head: head) }
            // Rows past the line's bytes are not read: the line is cut at or before the last object read.
            var changes = try store.changes(since: params.since, limit: params.limit + 1, snapshot: params.snapshot,
                                            maximumBytes: params.maximumLineLength)
            // Stopped short by bytes: more follows (the line is cut at or before the last object read anyway).
            let past = changes.count >= 2 && changes.byteCount + changes.count - 1 > params.maximumLineLength
            let full = changes.count > params.limit
            if full { changes.removeLast() }
            let more = full || past
            return EncodedPullPage(changes: changes, cursor: more ? (changes.seqs.last ?? head) : head, more: more)
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// The head, once `params.since` is checked against it and the horizon.
    /// - Precondition: `params.limit` is in ``PullRequest/limitRange``.
    private func pullableHead(_ params: PullRequest) throws -> Int64 {
        precondition(PullRequest.limitRange.contains(params.limit), "already enforced by PullRequest")
        do { try store.refresh() } catch { throw LedgerError.storage(error) }
        let head = store.head
        guard params.since >= 0, params.since <= head else {
            throw LedgerError.invalidCursor(since: params.since, head: head)
        }
        if let snapshot = params.snapshot, snapshot > head {
            throw RPCError.invalidParams("snapshot \(snapshot) is beyond the head \(head): give the head when the pull from 0 began",
                                         field: "snapshot")
        }
        // No cursor is too old for the purge horizon: a pull from above 0 carries the purged tombstones after it,
        // but those at or below its snapshot (LedgerStore.changes(since:limit:snapshot:maximumBytes:) says why).
        return head
    }

    /// A page that also serves the kinds the connection asked for (Protocol.md §10): the expenses (none with
    /// `expenses` false, and the cursor then passes over their seqs, §10.1) and `data`, each up to `limit + 1`,
    /// merged in seq order, then cut to `limit`.
    private func pageWithKinds(_ params: PullRequest, data: [DataRecord], head: Int64) throws -> EncodedPullPage {
        var others = EncodedChanges()
        for record in data { others.append(seq: record.seq) { record.write(to: &$0) } }
        let expenses = params.expenses
            ? try store.changes(since: params.since, limit: params.limit + 1, snapshot: params.snapshot, maximumBytes: .max)
            : EncodedChanges()
        var changes = expenses.merged(with: others)
        let more = changes.count > params.limit
        while changes.count > params.limit { changes.removeLast() }
        return EncodedPullPage(changes: changes, cursor: more ? (changes.seqs.last ?? head) : head, more: more)
    }

    /// The summary of the live records the query covers: from the store's aggregates, or, with a `conversion`,
    /// converted or filtered by tags (``summary(_:fromRecords:)``).
    package func summary(_ query: SummaryQuery, conversion: ViewConversion? = nil) throws -> SummaryResult {
        if conversion != nil || !query.tags.isEmpty { return try summary(query, fromRecords: conversion) }
        do {
            try store.refresh()
            return SummaryResult(summary: try store.summary(query), cursor: store.head)
        } catch {
            throw LedgerError.storage(error)
        }
    }
}
