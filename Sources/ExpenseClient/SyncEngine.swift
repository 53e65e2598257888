import ExpenseCore
import ExpenseProtocol
import Foundation
#if canImport(Glibc)
import Glibc
import SystemKit
#endif

/// `expense sync`: `hello`, push the queue in batches of at most 1000 mutations and at most the daemon's
/// `maxLine` bytes, pull pages until `more` is false, settle answers that were lost, all against one ``LocalLedger``.
///
/// Safe to interrupt anywhere and to run again: every step is one store transaction, mutationIds are
/// persisted before a push is written, and `hello`'s `lastMutationId` tells which numbered entries the daemon
/// consumed. A broken connection is retried from `hello` with bounded backoff.
///
/// - Important: blocking: run it on the main thread or a thread of its own.
package struct SyncEngine {
    /// What a sync did.
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
        /// What materialising recurring occurrences did in this sync (``recurringClock``), merged over its rounds.
        package var recurring = RecurringRun()

        package init() {}
    }

    package let ledger: LocalLedger
    package let remote: RemoteConfiguration
    package var clientName: String? = ProcessInfo.processInfo.hostName
    /// Attempts before giving up on an unreachable daemon (the first included).
    package var attempts = 4
    /// The wait before the second attempt; doubled each time, at most ``maximumBackoff``.
    package var initialBackoff: Duration = .milliseconds(200)
    package var maximumBackoff: Duration = .seconds(3)
    /// How long a call waits for its answer.
    package var timeout: Duration = .seconds(30)
    /// The most one attempt waits for the TCP connection and the answer to `hello` together
    /// (`EXPENSE_CONNECT_TIMEOUT`). A server that accepts but does not answer within it is given up on, not retried.
    package var connectTimeout: Duration = SyncConnection.defaultConnectTimeout
    /// Told what the sync is doing (connecting, retrying, push and pull progress), for a progress display.
    package var progress: ((SyncEvent) -> Void)?
    /// Records asked for per `pull` page (the protocol's maximum: fewer round trips and commits).
    package var pullLimit = PullRequest.limitRange.upperBound
    /// Told what happens, for `--verbose` or logs.
    package var log: (String) -> Void = { _ in }
    /// Where a test may inject a fault (by throwing ``SyncError/unreachable(_:)``).
    package enum FaultPoint: Sendable, Hashable {
        /// A push is written; its answer not yet read.
        case pushWritten
        /// A push's answer is read but not yet applied (throwing here is an answer lost after the daemon applied it).
        case pushAnswered
    }
    /// Called at each ``FaultPoint`` with the batch (tests only).
    package var faultInjection: ((FaultPoint, [PendingMutation]) throws -> Void)?
    /// The clock whose day, in the ledger's time zone, recurring occurrences are materialised up to before each
    /// push (``LocalLedger/materialiseRecurring(today:limit:)``); `nil`: none are (tests of other things).
    package var recurringClock: (() -> Date)?
    /// Told of every change the daemon acknowledged as applied, with its version (tests check none is lost).
    package var onApplied: ((PendingMutation, Int64) -> Void)?

    /// Orders the addresses of the remote's list other than the one that worked last (shuffled; a test passes
    /// `{ $0 }` to keep the written order).
    package var shuffle: ([RemoteAddress]) -> [RemoteAddress] = { $0.shuffled() }
    /// Which address of the list is current: shared by the copies of this engine, moved on by failures.
    private let addressState = AddressState()

    package init(ledger: LocalLedger, remote: RemoteConfiguration) {
        self.ledger = ledger
        self.remote = remote
    }

    /// Runs one sync, retrying a broken connection.
    /// - Throws: ``SyncError`` (the queue is intact), ``StoreError``.
    package func sync() throws -> Report {
        var report = Report()
        defer { progress?(.finished) }
        do {
            try retrying { attempt in
                progress?(.connecting(server: try rotation().current.description, attempt: attempt, attempts: max(attempts, 1)))
                var broken = 0
                while true {
                    let connection = try connect()
                    defer { connection.close() }
                    do {
                        try run(on: connection, report: &report)
                    } catch SyncError.unreachable(let reason) {
                        // The connection broke, timed out, or the daemon lost its storage: the next address at once
                        // (each connection of an attempt at most once per address), then the attempt fails.
                        addressState.rotation?.moveOn()
                        broken += 1
                        guard broken < (try rotation().order.count) else { throw SyncError.unreachable(reason) }
                        log("\(connection.address): \(reason); trying the next address")
                        continue
                    }
                    return
                }
            }
        } catch let error as SyncError where error.showsInStatus {
            // Kept for `expense status` (a later successful sync clears it); the queue is intact either way.
            try? ledger.recordSyncFailure(error.description)
            throw error
        }
        return report
    }

    /// The remote's addresses in the order this engine tries them, from the current one.
    /// - Throws: ``SyncError/notConfigured(_:)`` for an invalid address list.
    package func rotation() throws(SyncError) -> AddressRotation {
        if let rotation = addressState.rotation { return rotation }
        let rotation = try remote.rotation(shuffle: shuffle)
        addressState.rotation = rotation
        return rotation
    }

    /// Connects to the first address of the list (from the current one) that answers `hello` for this cache's
    /// ledger, then prepares the queue for this session. An address that cannot be reached, does not answer or
    /// serves another ledger is passed over (``Failover``); the one reached stays current and is remembered.
    package func connect() throws -> SyncConnection {
        try Failover.first(of: try rotation().pass, failed: { address, error in
            log("\(address): \(error); trying the next address")
        }) { address in try connect(to: address) }
    }

    /// Connects to `address` and says `hello`, checks the ledger (``LocalLedger/beginSession(_:remote:)``),
    /// then prepares the queue for this session; `address` becomes current and is remembered in the cache
    /// (``StoreMetaKey/lastServer``) for the next command.
    /// - Throws: ``SyncError`` (``SyncError/otherLedger(synced:asked:)`` with nothing changed when `address`
    ///   serves another ledger), ``StoreError``.
    package func connect(to address: RemoteAddress) throws -> SyncConnection {
        guard let clientId = try ledger.store.clientId() else { throw SyncError.protocolError("the local store has no client id") }
        // Every kind this cache keeps is asked for; the daemon serves those it knows too (Protocol.md §10.1), and
        // this one session pushes and pulls them all.
        let connection = try SyncConnection(remote: remote, address: address, clientId: clientId, clientName: clientName,
                                            timeout: timeout, connectTimeout: connectTimeout, kinds: ledger.keptKinds)
        do {
            try ledger.beginSession(connection.hello, remote: remote.key(at: address))
        } catch {
            connection.close()
            throw error
        }
        _ = try? rotation()
        addressState.rotation?.stick(to: address)
        if try ledger.store.metaValue(.lastServer) != address.description {
            try ledger.store.write { try $0.setMetaValue(address.description, for: .lastServer) }
        }
        return connection
    }

    /// Recover, push, pull, settle on an open session, adding to `report`. Entries whose lost answer turns out
    /// not to have been applied go out again in a second round.
    package func run(on connection: SyncConnection, report: inout Report) throws {
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
        if let point = try ledger.healPoint() { try heal(on: connection, from: point, report: &report) }
        try catchUp(kinds, on: connection, report: &report)
        if recurringClock != nil, kinds.contains(.recurring) {
            // The rules of the ledger first: occurrences are then made knowing every rule, and those of a held
            // twin made before this sync knew its twin never go out (RecurringTwins).
            try pullHealing(on: connection, report: &report, produced: produced)
        }
        if let recurringClock, let cache = ledger.dataCache {
            report.recurring.withdrawn += try ledger.withdrawHeldOccurrences(today: try cache.today(now: recurringClock()))
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
        guard let recurringClock, let cache = ledger.dataCache else { return false }
        let run = try ledger.materialiseRecurring(today: try cache.today(now: recurringClock()))
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
    package func recover(on connection: SyncConnection, report: inout Report,
                         produced: ProducedVersions = ProducedVersions()) throws {
        var position: Int64 = 0
        while true {
            let batch = try ledger.unanswered(after: position)
            guard let last = batch.last else { return }
            position = last.position
            let outcome = try take(try connection.call(Self.request(for: batch)), for: batch, report: &report, produced: produced)
            log("recover: \(batch.count) asked again, \(outcome.applied) applied, \(outcome.conflicts) conflicts, \(outcome.rejected) rejected")
        }
    }

    /// The push of `batch` (numbered entries; `unanswered` and `nextBatch` return only those).
    private static func request(for batch: [PendingMutation]) -> PushRequest {
        PushRequest(mutations: batch.compactMap { entry in entry.mutationId.map { entry.mutation(mutationId: $0) } })
    }

    /// Takes the daemon's answer to the push of `batch`, whether sent for the first time or asked again after a
    /// lost answer: tells ``onApplied``, notes the versions this client produced, applies the results to the
    /// ledger and counts them in `report`.
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

    /// Tells ``onApplied`` of each change the daemon acknowledged as applied in `result` (a `duplicate`'s
    /// original outcome included).
    private func tellApplied(_ result: PushResult, _ batch: [PendingMutation]) {
        guard let onApplied else { return }
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
    package func push(on connection: SyncConnection, kinds: Set<RecordKind> = Set(RecordKind.additional),
                      report: inout Report, produced: ProducedVersions = ProducedVersions()) throws {
        let total = try progress.map { _ in try ledger.store.pendingCount() } ?? 0
        var sent = 0
        while true {
            let batch = try ledger.nextBatch(maximumLineLength: connection.hello.maxLine, kinds: kinds)
            if batch.isEmpty { break }
            let request = Self.request(for: batch)
            let result: PushResult
            do {
                if let faultInjection {
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
            log("push: \(batch.count) sent, \(outcome.applied) applied, \(outcome.conflicts) conflicts, \(outcome.rejected) rejected")
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

    /// Runs `body` until it succeeds, retrying ``SyncError/unreachable(_:)`` with doubling waits.
    package func retrying(_ body: (Int) throws -> Void) throws {
        var wait = initialBackoff
        for attempt in 1...max(attempts, 1) {
            do {
                try body(attempt)
                return
            } catch SyncError.unreachable(let reason) where attempt < attempts {
                log("attempt \(attempt) failed (\(reason)); retrying in \(wait)")
                progress?(.retrying(attempt: attempt + 1, attempts: attempts, wait: wait, reason: reason))
                Self.pause(wait)
                wait = min(wait * 2, maximumBackoff)
            }
        }
    }

    /// Blocks the calling thread (never the cooperative pool: this engine runs on a thread of its own).
    package static func pause(_ duration: Duration) { sleepThread(for: duration) }
}

/// The current address of a ``SyncEngine``'s remote, shared by its copies.
private final class AddressState {
    var rotation: AddressRotation?
}
