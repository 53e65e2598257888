import ExpenseCore
import ExpenseProtocol
import Foundation

/// `expense sync`: `hello`, push the queue in batches of at most 1000 mutations and at most the daemon's
/// `maxLine` bytes, pull pages until `more` is false, settle answers that were lost, all against one ``LocalLedger``.
///
/// Safe to interrupt anywhere and to run again: every step is one store transaction, mutationIds are
/// persisted before a push is written, and `hello`'s `lastMutationId` tells which numbered entries the daemon
/// consumed. A broken connection is retried from `hello` with bounded backoff.
///
/// The one type callers use (the CLI, ``SyncWatcher``, tests). It opens sessions (`hello`, the ledger check, the
/// address remembered) and composes parts that each have one job:
/// - ``SyncRetry``: the attempts and the waits between them, and which of the remote's addresses is current;
/// - ``SyncRound``: one round on an open session (recover, push, pull, settle) and the ``Report`` it fills;
/// - ``SyncHealer``: the pull that reconciles the cache with a daemon whose history was replaced.
/// What a caller chooses is its ``Configuration``; what only a test replaces is its ``Dependencies``, given at init.
///
/// - Important: blocking: run it on the main thread or a thread of its own.
package struct SyncEngine {
    /// The cache this engine syncs (the watcher reads its cursor and records failures in it).
    package let ledger: LocalLedger
    /// Where the daemon is: its addresses, ledger and token.
    package let remote: RemoteConfiguration
    /// The options the caller chose (`engine.configuration.attempts = 2`).
    package var configuration = Configuration()
    /// What a test replaced, fixed for the engine's life; ``Dependencies/live`` otherwise.
    package let dependencies: Dependencies
    /// Which address of the list is current: shared by the copies of this engine, moved on by failures.
    private let currentAddress = CurrentAddress()

    /// - Parameter dependencies: the clock, address order, fault points and applied observer; a test passes its
    ///   own, everyone else the default.
    package init(ledger: LocalLedger, remote: RemoteConfiguration, dependencies: Dependencies = .live) {
        self.ledger = ledger
        self.remote = remote
        self.dependencies = dependencies
    }

    /// Attempts and addresses, over the current configuration and this engine's shared current address.
    var retry: SyncRetry {
        SyncRetry(remote: remote, configuration: configuration, shuffle: dependencies.shuffle, current: currentAddress)
    }

    /// A round with the current configuration.
    var round: SyncRound { SyncRound(ledger: ledger, configuration: configuration, dependencies: dependencies) }

    /// Runs one sync, retrying a broken connection.
    /// - Throws: ``SyncError`` (the queue is intact), ``StoreError``.
    package func sync() throws -> Report {
        var report = Report()
        let retry = self.retry, round = self.round, progress = configuration.progress
        defer { progress?(.finished) }
        do {
            try retry.retrying { attempt in
                progress?(.connecting(server: try retry.rotation().current.description, attempt: attempt,
                                      attempts: max(configuration.attempts, 1)))
                try retry.movingOnWhenBroken(connect: { try connect() }) { connection in
                    try round.run(on: connection, report: &report)
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
    package func rotation() throws(SyncError) -> AddressRotation { try retry.rotation() }

    /// Connects to the first address of the list (from the current one) that answers `hello` for this cache's
    /// ledger, then prepares the queue for this session. An address that cannot be reached, does not answer or
    /// serves another ledger is passed over (``Failover``); the one reached stays current and is remembered.
    package func connect() throws -> SyncConnection {
        try Failover.first(of: try rotation().pass, failed: { address, error in
            configuration.log("\(address): \(error); trying the next address")
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
        let connection = try SyncConnection(remote: remote, address: address, clientId: clientId,
                                            clientName: configuration.clientName, timeout: configuration.timeout,
                                            connectTimeout: configuration.connectTimeout, kinds: ledger.keptKinds)
        do {
            try ledger.beginSession(connection.hello, remote: remote.key(at: address))
        } catch {
            connection.close()
            throw error
        }
        retry.stick(to: address)
        if try ledger.store.metaValue(.lastServer) != address.description {
            try ledger.store.write { try $0.setMetaValue(address.description, for: .lastServer) }
        }
        return connection
    }

    /// One round on an open session (``SyncRound/run(on:report:)``), adding to `report`: what `sync --watch`
    /// runs on the connection it keeps.
    package func run(on connection: SyncConnection, report: inout Report) throws {
        try round.run(on: connection, report: &report)
    }

    /// Pushes the queue on an open session without pulling (``SyncRound/push(on:kinds:report:produced:)``).
    /// - Throws: ``SyncError``; a protocol failure of a push names the changes it carried.
    package func push(on connection: SyncConnection, kinds: Set<RecordKind> = Set(RecordKind.additional),
                      report: inout Report, produced: ProducedVersions = ProducedVersions()) throws {
        try round.push(on: connection, kinds: kinds, report: &report, produced: produced)
    }

    /// Heals the cache from `point` on an open session (``SyncHealer/heal(on:from:report:)``).
    package func heal(on connection: SyncConnection, from point: Int64, report: inout Report) throws {
        try round.healer.heal(on: connection, from: point, report: &report)
    }

    /// Runs `body` until it succeeds, retrying what ``SyncRetry/retryReason(_:)`` calls worth another attempt,
    /// with doubling waits: for the commands that ask the daemon one thing (`summary --server`, `history`).
    package func retrying(_ body: (Int) throws -> Void) throws { try retry.retrying(body) }

    /// Blocks the calling thread (never the cooperative pool: this engine runs on a thread of its own).
    package static func pause(_ duration: Duration) { SyncRetry.pause(duration) }
}
