import ExpenseCore
import ExpenseProtocol
import Foundation

extension SyncEngine {
    /// What a sync did: the counts its rounds added up, and what is left open after the last.
    package struct Report: Sendable, Equatable {
        /// Mutations the daemon applied.
        package var pushed = 0
        /// Records pulled that are another client's change. The echo of this client's own changes (a pulled
        /// record at the `seq` a push of this sync, or a lost answer it recovered, was answered with) is not
        /// counted, nor a record older than the copy held.
        package var pulled = 0
        /// Conflicts found in this sync.
        package var newConflicts = 0
        /// Rejections in this sync.
        package var rejected = 0
        /// Open conflicts after the sync.
        package var openConflicts = 0
        /// Entries rejected (by the daemon, or here as too large for its line) and still queued.
        package var openRejections = 0
        /// Of ``openRejections``, the entries rejected here because their push line alone passes the daemon's
        /// `maxLine` (reason `too_large`).
        package var tooLarge = 0
        /// Entries still queued (rejected ones included).
        package var pending = 0
        /// The pull cursor after the sync.
        package var cursor: Int64 = 0
        /// The kinds besides expenses this session synced: those both this cache and the daemon know
        /// (empty for the JSON cache or a daemon older than the kinds).
        package var kinds: [RecordKind] = []
        /// What materialising recurring occurrences did in this sync
        /// (``SyncEngine/Configuration/materialisesRecurring``), merged over its rounds.
        package var recurring = RecurringRun()

        package init() {}
    }
}

/// One sync round on an open session: answers that were lost asked for again, the queue pushed, the daemon's
/// changes pulled, unknown outcomes settled and the recurring occurrences due materialised, repeated while
/// something is left to send (three times at most); then what is left open, in the ``SyncEngine/Report``.
///
/// A round knows nothing of addresses or attempts (``SyncRetry``): a failure ends it, and the engine decides
/// whether another address or attempt runs a new one. Each step is one store transaction, so a round cut anywhere
/// leaves a queue the next round finishes. Of the configuration it reads the pull limit, progress, log and
/// whether to materialise; of the dependencies the clock, the fault points and the applied observer.
struct SyncRound {
    typealias Report = SyncEngine.Report

    let ledger: LocalLedger
    let configuration: SyncEngine.Configuration
    let dependencies: SyncEngine.Dependencies

    /// The heal of a cache whose daemon replaced its history, with this round's pull limit and log.
    var healer: SyncHealer { SyncHealer(ledger: ledger, pullLimit: configuration.pullLimit, log: configuration.log) }

    /// Recover, push, pull, settle on an open session, adding to `report`. Entries whose lost answer turns out
    /// not to have been applied go out again in a second round.
    func run(on connection: SyncConnection, report: inout Report) throws {
        let produced = ProducedVersions()
        let kinds = Set(connection.hello.kinds ?? []).intersection(ledger.keptKinds)
        report.kinds = kinds.sorted()
        // A viewer's token may send nothing: what was queued before the cache knew it (or under another token) is
        // kept as rejected, shown and discardable, and the sync pulls on.
        let mayWrite = connection.hello.role?.mayWrite ?? true
        if mayWrite {
            try ledger.reopenRefused()
            try recover(on: connection, report: &report, produced: produced)
        } else {
            try ledger.refuseUnsent(because: connection.hello.tokenName)
        }
        if let point = try ledger.healPoint() { try healer.heal(on: connection, from: point, report: &report) }
        try catchUp(kinds, on: connection, report: &report)
        let recurring = configuration.materialisesRecurring
        if recurring, kinds.contains(.recurring) {
            // The rules of the ledger first: occurrences are then made knowing every rule, and those of a held
            // twin made before this sync knew its twin never go out (RecurringTwins).
            try pullHealing(on: connection, report: &report, produced: produced)
        }
        if recurring, let cache = ledger.dataCache {
            report.recurring.withdrawn += try ledger.withdrawHeldOccurrences(today: try cache.today(now: dependencies.clock()))
        }
        for _ in 1...3 {
            if mayWrite { try push(on: connection, kinds: kinds, report: &report, produced: produced) }
            try pullHealing(on: connection, report: &report, produced: produced)
            try ledger.settleUnknown()
            // After the pull, which brings the occurrences other machines made: those due and still missing go
            // out in the next round.
            try materialise(report: &report)
            if try !mayWrite || !ledger.hasUnsent(kinds: kinds) { break }
        }
        try ledger.finishSync()
        // Counted, not loaded: a first push of 200,000 expenses leaves nothing here, but a failed one leaves them all.
        let rejected = try ledger.store.rejectedMutations()
        report.pending = try ledger.store.pendingCount()
        report.openRejections = rejected.count
        report.tooLarge = rejected.count { $0.rejection?.isTooLarge == true }
        report.openConflicts = try ledger.openConflictCount()
        report.cursor = try ledger.pullCursor()
    }

    /// Materialises the recurring occurrences due (after a pull: what other machines made is known by then, and
    /// the cache is bound to its ledger id); `true` when it queued anything.
    @discardableResult
    private func materialise(report: inout Report) throws -> Bool {
        guard configuration.materialisesRecurring, let cache = ledger.dataCache else { return false }
        let run = try ledger.materialiseRecurring(today: try cache.today(now: dependencies.clock()))
        report.recurring.created += run.created
        report.recurring.deleted += run.deleted
        report.recurring.limited += run.limited
        report.recurring.withdrawn += run.withdrawn
        return run.changed
    }

    /// Sends every entry whose answer was lost again, with its own mutationId: the daemon applies nothing twice
    /// and answers `duplicate` with what it decided then, while it keeps that (Protocol.md §5.2, §7.6), so an
    /// applied change is known as applied and only a real conflict is shown as one. Entries whose outcome is no
    /// longer kept stay unknown and are settled against the pull (``LocalLedger/settleUnknown()``).
    func recover(on connection: SyncConnection, report: inout Report, produced: ProducedVersions) throws {
        var position: Int64 = 0
        while true {
            let batch = try ledger.unanswered(after: position)
            guard let last = batch.last else { return }
            position = last.position
            let outcome = try take(try connection.call(Self.request(for: batch)), for: batch, report: &report, produced: produced)
            configuration.log("recover: \(batch.count) asked again, \(outcome.applied) applied, \(outcome.conflicts) conflicts, \(outcome.rejected) rejected")
        }
    }

    /// The push of `batch` (numbered entries; `unanswered` and `nextBatch` return only those).
    private static func request(for batch: [PendingMutation]) -> PushRequest {
        PushRequest(mutations: batch.compactMap { entry in entry.mutationId.map { entry.mutation(mutationId: $0) } })
    }

    /// Takes the daemon's answer to the push of `batch`, whether sent for the first time or asked again after a
    /// lost answer: tells ``SyncEngine/Dependencies/onApplied``, notes the versions this client produced, applies
    /// the results to the ledger and counts them in `report`.
    private func take(_ result: PushResult, for batch: [PendingMutation], report: inout Report,
                      produced: ProducedVersions) throws -> LocalLedger.PushOutcome {
        tellApplied(result, batch)
        produced.note(result)
        let outcome = try ledger.apply(results: result.results, for: batch)
        report.pushed += outcome.applied
        report.newConflicts += outcome.conflicts
        report.rejected += outcome.rejected
        return outcome
    }

    /// Tells ``SyncEngine/Dependencies/onApplied`` of each change the daemon acknowledged as applied in `result`
    /// (a `duplicate`'s original outcome included).
    private func tellApplied(_ result: PushResult, _ batch: [PendingMutation]) {
        guard let onApplied = dependencies.onApplied else { return }
        let byId = Dictionary(batch.compactMap { entry in entry.mutationId.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
        for item in result.results {
            var status = item.status
            if case .duplicate(let original?) = status { status = original.status }
            if case .applied(let version, _) = status, let entry = byId[item.mutationId] { onApplied(entry, version) }
        }
    }

    /// Pushes batches until nothing more can be sent; each push line fits in the daemon's `maxLine`.
    /// - Throws: ``SyncError``; a protocol failure of a push names the changes it carried.
    /// - Parameter kinds: the kinds besides expenses the daemon serves on `connection`; entries of other kinds
    ///   stay queued, unnumbered, for a daemon that knows them.
    func push(on connection: SyncConnection, kinds: Set<RecordKind>, report: inout Report,
              produced: ProducedVersions) throws {
        let progress = configuration.progress
        let total = try progress.map { _ in try ledger.store.pendingCount() } ?? 0
        var sent = 0
        while true {
            let batch = try ledger.nextBatch(maximumLineLength: connection.hello.maxLine, kinds: kinds)
            if batch.isEmpty { break }
            let request = Self.request(for: batch)
            let result: PushResult
            do {
                if let faultInjection = dependencies.faultInjection {
                    result = try connection.call(request) { try faultInjection(.pushWritten, batch) }
                    try faultInjection(.pushAnswered, batch)
                } else {
                    result = try connection.call(request)
                }
            } catch SyncError.protocolError(let text) {
                throw SyncError.protocolError(text + " (" + Self.describe(batch) + ")")
            }
            let outcome = try take(result, for: batch, report: &report, produced: produced)
            sent += batch.count
            progress?(.pushing(sent: sent, total: max(total, sent)))
            configuration.log("push: \(batch.count) sent, \(outcome.applied) applied, \(outcome.conflicts) conflicts, \(outcome.rejected) rejected")
            if outcome.gap { throw SyncError.protocolError("the daemon reported a mutation_gap; run sync again") }
        }
        // Entries that were not sent (rejected ones, conflicts' own) were counted in the total: the push is done.
        if sent > 0, sent < total { progress?(.pushing(sent: sent, total: sent)) }
    }

    /// Which changes a push carried, for an error a person reads: `expense status` then names them.
    static func describe(_ batch: [PendingMutation]) -> String {
        let ids = batch.compactMap(\.mutationId)
        let first = batch.first.map { "\($0.kind.rawValue) " + String(UUIDText.lowercased($0.id).prefix(8)) } ?? "-"
        let numbers = ids.count == 1 ? "mutationId \(ids[0])" : "mutationIds \(ids.first ?? 0)–\(ids.last ?? 0)"
        return "while pushing \(batch.count) change\(batch.count == 1 ? "" : "s"), \(numbers), the first of \(first)"
    }
}
