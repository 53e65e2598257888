import ExpenseCore
import ExpenseProtocol
import SystemKit
import FoundationEssentials
import Synchronization

/// One ledger: the only owner of its store. Connections reach the ledger's state through this actor alone.
///
/// The actor runs on a thread of its own (``LedgerExecutor``), never on the cooperative pool, because its
/// SQLite work blocks.
///
/// The network front reaches it through ``LedgerService``'s one form of each method: the work is queued on the
/// ledger's thread and the method returns at once, calling its completion there (no `Task`, no suspension).
/// What the daemon's tools call (the tokens, compaction, ``close()``) are the actor's own methods.
///
/// Group commit: ``push(clientId:items:credential:completion:)`` queues its mutations; one flush, scheduled
/// behind the requests already waiting for the actor, applies every queued push in order inside ONE transaction
/// and one fsync, then answers each of them.
///
/// - Important: Durable before acknowledged. A push returns only after the transaction holding its effects and
///   its client's last consumed mutationId has committed. A failed commit answers every push of the group with
///   an error (nothing of them acknowledged). After an I/O failure (possibly a failed fsync, after which the
///   kernel may already have dropped the pages it could not write) the ledger refuses writes until it is
///   re-opened: retrying would risk acknowledging data that is not on disk. A full disk is not such a failure:
///   SQLite rolled the transaction back cleanly, and writes work again once space returns.
public actor Ledger {
    public nonisolated let name: String
    public nonisolated let currency: Currency
    /// Where this ledger's own lines go (a failed WAL checkpoint): the daemon's log, at its level.
    nonisolated let log: ServerLog
    /// The ledger's id and history epoch, as `hello` reports them.
    public nonisolated let identity: LedgerIdentity?

    /// The ledger's tokens as last read and the credentials handed out for them (`Ledger+Tokens.swift`).
    nonisolated let access: LedgerAccess
    private let executor: LedgerExecutor
    /// The head as of the latest commit, readable from any thread without a hop to the actor (``head``).
    /// Stored after each commit and before that commit's pushes are answered, so a client that saw its push
    /// acknowledged and then pings never gets an older cursor.
    private nonisolated let committedHead: Atomic<Int64>
    /// The engine's rules, for preparing a push on the thread that hands it over (``MutationRules/prepare(_:)``).
    private nonisolated let rules: MutationRules
    /// Internal, not private, for `Ledger+Tokens.swift`.
    var engine: LedgerEngine?
    private var pending: [PendingPush] = []
    private var flushScheduled = false
    private var failure: LedgerError?
    private var watchers: [Int: @Sendable (Int64) -> Void] = [:]
    private var nextWatcherId = 0
    /// Group commits done so far (fewer than the pushes when pushes shared a commit).
    package private(set) var commitCount = 0

    private struct PendingPush {
        var clientId: UUID
        /// Prepared on the pushing thread (``MutationRules/prepare(_:)``).
        var items: [PreparedItem]
        /// Who pushes (`nil`: a caller inside the daemon or a test). `credential?.name` is the author of the
        /// push's changes; a revoked credential's push is refused before it is applied.
        var credential: TokenCredential?
        var completion: @Sendable (Result<PushResult, any Error>) -> Void
    }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A ledger over `store`, which it owns from now on.
    package init(name: String, currency: Currency, store: sending any LedgerStore,
                 identity: LedgerIdentity? = LedgerIdentity(ledgerId: UUID(), epoch: UUID(), epochCursor: 0),
                 fieldsConverter: @escaping FieldsConverter = ExpenseFields.draft(from:), log: ServerLog = .none) {
        self.name = name
        self.log = log
        self.currency = currency
        self.identity = identity
        self.executor = LedgerExecutor(name: "ledger-" + name)
        self.access = LedgerAccess(tokens: Self.initialTokens(store))
        let engine = LedgerEngine(store: store, currency: currency, fieldsConverter: fieldsConverter)
        self.committedHead = Atomic(engine.store.head)
        self.rules = engine.rules
        self.engine = engine
        // A store that holds a shared resource only while the ledger has work gives it back when the ledger's
        // thread runs out of work, and here, after the reads above (on the opener's thread, before any).
        if engine.store.leasesWhileBusy {
            engine.store.becameIdle()
            executor.whenDrained { [weak self] in self?.assumeIsolated { $0.engine?.store.becameIdle() } }
        }
    }

    /// The head of the latest commit, read without waiting for the actor (what `ping` answers). A ledger closed
    /// keeps its last head here.
    public nonisolated var head: Int64 { committedHead.load(ordering: .acquiring) }

    /// The ledger's head and the highest mutationId consumed for `clientId` (0 for a new client), read on the
    /// ledger's thread; `completion` runs there.
    public nonisolated func hello(clientId: UUID,
                                  completion: @escaping @Sendable (Result<(cursor: Int64, lastMutationId: Int64), any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().hello(clientId: clientId) }) }
    }

    /// Queues a push for the next group commit and returns at once; `completion` runs on the ledger's thread once
    /// the push's effects and the client's last consumed mutationId are committed (or it failed). Made with
    /// `credential` (the session's token), it is refused with −32001 if that token is revoked before the push is
    /// applied; `nil` (a caller inside the daemon, a test) has no author and no check.
    ///
    /// The items are prepared here, on the caller's thread (the network front's loop thread, which decoded
    /// them), before the hand-over: the ledger's thread only decides and writes.
    ///
    /// A failure is a ``LedgerError`` (`storage_full`, `storage_failed`, `ledger_failed`, …): then nothing of
    /// the push was acknowledged and, except after an I/O failure, none of its ids consumed.
    /// - Precondition: at most ``PushRequest/maximumMutations`` items: already enforced by ``PushRequest``, which
    ///   answers a larger push `batch_too_large` before it reaches a ledger.
    public nonisolated func push(clientId: UUID, items: [PushItem], credential: TokenCredential?,
                                 completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void) {
        precondition(items.count <= PushRequest.maximumMutations, "already enforced by PushRequest")
        let items = rules.prepare(items)
        perform { ledger in
            ledger.enqueue(PendingPush(clientId: clientId, items: items, credential: credential, completion: completion))
        }
    }

    /// Runs `body` on the ledger's thread, isolated to the actor, after what is queued already, without
    /// creating a `Task`: one hand-over from the caller's thread to the ledger's, and none back.
    nonisolated func perform(_ body: @escaping @Sendable (isolated Ledger) -> Void) {
        executor.enqueue { self.assumeIsolated { body($0) } }
    }

    /// Queues a push; the first push queued after a flush schedules the next flush behind everything already
    /// waiting for the ledger, so pushes that arrived during a commit share the next one.
    ///
    /// The tokens are not re-read here but once per group, in ``flush()``, before anything of it is applied: a
    /// token revoked by then has its pushes refused there (and its connections closed), as before.
    private func enqueue(_ push: PendingPush) {
        guard engine != nil else {
            push.completion(.failure(LedgerError.ledgerClosed))
            return
        }
        if let failure {
            push.completion(.failure(failure))
            return
        }
        pending.append(push)
        if !flushScheduled {
            flushScheduled = true
            perform { $0.flush() }
        }
    }

    /// The page of changes after `params.since`, in seq order, as the bytes the front sends
    /// (``LedgerEngine/pullPage(_:)``): runs on the ledger's thread and calls `completion` there.
    public nonisolated func pull(_ params: PullRequest,
                                 completion: @escaping @Sendable (Result<EncodedPullPage, any Error>) -> Void) {
        perform { ledger in
            completion(Result { try ledger.openEngine().pullPage(params) })
            HeapReturn.noteWork()  // the page's buffers are freed; the heap goes back once the pulls end
        }
    }

    /// Totals from the ledger's aggregates, or converted from its records and rates: runs on the ledger's thread
    /// and calls `completion` there.
    public nonisolated func summary(_ request: SummaryRequest,
                                    completion: @escaping @Sendable (Result<SummaryResult, any Error>) -> Void) {
        perform { ledger in completion(Result { try ledger.openEngine().summary(request.query, conversion: request.conversion) }) }
    }

    /// Reads the head again from a store that other daemons write too (a PostgreSQL notification, or the
    /// periodic re-check: ``PostgresChangeListener``), and wakes the watchers when it moved.
    nonisolated func refreshFromStorage() {
        perform { ledger in ledger.refreshHead() }
    }

    private func refreshHead() {
        guard let engine, (try? engine.store.refresh()) != nil else { return }
        let head = engine.store.head
        guard head > committedHead.load(ordering: .acquiring) else { return }
        committedHead.store(head, ordering: .releasing)
        for watcher in watchers.values { watcher(head) }
    }

    /// Calls `onAdvance` with the new head after each commit that advances it (on the ledger's thread: keep it
    /// short); `completion` gets the watcher's id, for ``unwatch(_:completion:)``, and the head. Registered on
    /// the ledger's thread without a `Task`, so a busy cooperative pool never delays a `watch` answer.
    public nonisolated func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void,
                                  completion: @escaping @Sendable (_ id: Int, _ head: Int64) -> Void) {
        perform { ledger in
            ledger.nextWatcherId += 1
            ledger.watchers[ledger.nextWatcherId] = onAdvance
            completion(ledger.nextWatcherId, ledger.engine?.store.head ?? 0)
        }
    }

    /// Stops calling a watcher, on the ledger's thread.
    public nonisolated func unwatch(_ id: Int, completion: @escaping @Sendable () -> Void) {
        perform { ledger in
            ledger.watchers[id] = nil
            completion()
        }
    }

    /// Commits what is queued, then closes the store. Later calls throw ``LedgerError/ledgerClosed``.
    public func close() async {
        flush()
        writeTokenUses()
        engine = nil
        watchers.removeAll()
    }

    /// The engine, after taking in any token change another process committed (so a revoked token does no
    /// more work from here on: its connections are closed before this request is answered).
    func openEngine() throws -> LedgerEngine {
        guard let engine else { throw LedgerError.ledgerClosed }
        refreshTokens()
        return engine
    }

    /// Applies every queued push in one transaction and answers each.
    private func flush() {
        flushScheduled = false
        if !pending.isEmpty { refreshTokens() }
        let batch = pending.filter { push in
            guard push.credential?.isRevoked == true else { return true }
            push.completion(.failure(RPCError.unauthorized("the token was revoked")))
            return false
        }
        pending.removeAll()
        guard !batch.isEmpty else { return }
        guard let engine, failure == nil else {
            for push in batch { push.completion(.failure(failure ?? LedgerError.ledgerClosed)) }
            return
        }
        let headBefore = engine.store.head
        do {
            // The history names each change's author by the token that pushed it (Protocol.md §5.8).
            let results = try engine.apply(prepared: batch.map { ($0.clientId, $0.items, $0.credential?.name) })
            commitCount += 1
            committedHead.store(engine.store.head, ordering: .releasing)
            HeapReturn.noteWork()  // the group's buffers are freed; the heap goes back once the burst ends
            // One `write` for the whole group's log lines, still one line per push (ServerLog.coalescingWrites).
            ServerLog.coalescingWrites {
                for (push, result) in zip(batch, results) { push.completion(.success(result)) }
            }
        } catch {
            let ledgerError = LedgerError.storage(error)
            if case .storageFailed(let detail) = ledgerError { failure = .ledgerFailed(detail) }
            for push in batch { push.completion(.failure(ledgerError)) }
        }
        let head = engine.store.head
        if head != headBefore { for watcher in watchers.values { watcher(head) } }
        if let failure = engine.store.takeBackgroundFailure() {
            // Nothing is lost (the synced WAL keeps every commit) and the next checkpoint tries again.
            log(.warning, "ledger \(name): \(failure); nothing committed is lost")
        }
    }
}
