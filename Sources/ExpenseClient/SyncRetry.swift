import SystemKit

/// Retry and address rotation for a ``SyncEngine``: how many attempts, the waits between them, which failures are
/// worth another attempt, and which of the remote's addresses is current.
///
/// The addresses are tried from the one reached last, then the others in the order
/// ``SyncEngine/Dependencies/shuffle`` gave (``RemoteAddressList/order(preferred:shuffle:)``); a broken session
/// moves on to the next at once, and an attempt that ran out of addresses waits and starts again. The engine makes
/// one of these per use from its configuration; the current address lives in a ``CurrentAddress`` that the
/// copies of one engine share, so its next sync starts where the last one got through.
struct SyncRetry {
    let remote: RemoteConfiguration
    /// Attempts before giving up (the first included; fewer than one is one).
    let attempts: Int
    /// The wait before the second attempt; doubled each time, at most ``maximumBackoff``.
    let initialBackoff: Duration
    let maximumBackoff: Duration
    let progress: ((SyncEvent) -> Void)?
    let log: (String) -> Void
    let shuffle: ([RemoteAddress]) -> [RemoteAddress]
    let current: CurrentAddress

    init(remote: RemoteConfiguration, configuration: SyncEngine.Configuration,
         shuffle: @escaping ([RemoteAddress]) -> [RemoteAddress], current: CurrentAddress) {
        self.remote = remote
        attempts = configuration.attempts
        initialBackoff = configuration.initialBackoff
        maximumBackoff = configuration.maximumBackoff
        progress = configuration.progress
        log = configuration.log
        self.shuffle = shuffle
        self.current = current
    }

    /// Why `error` is worth another address or attempt, or `nil` when it is not. Only
    /// ``SyncError/unreachable(_:)`` is: the connection could not be made, broke or timed out, or the daemon lost
    /// its storage, and the queue and `hello`'s `lastMutationId` settle whatever was in flight. Anything else (a
    /// refused token, a protocol error, another ledger, a local store failure) would fail the same way again.
    static func retryReason(_ error: any Error) -> String? {
        if case .unreachable(let reason)? = error as? SyncError { return reason }
        return nil
    }

    /// Runs `body` (given the attempt's number, from 1) until it succeeds, retrying a failure with a
    /// ``retryReason(_:)`` after doubling waits; the last attempt's failure is thrown.
    func retrying(_ body: (Int) throws -> Void) throws {
        var wait = initialBackoff
        for attempt in 1...max(attempts, 1) {
            do {
                try body(attempt)
                return
            } catch {
                guard attempt < attempts, let reason = Self.retryReason(error) else { throw error }
                log("attempt \(attempt) failed (\(reason)); retrying in \(wait)")
                progress?(.retrying(attempt: attempt + 1, attempts: attempts, wait: wait, reason: reason))
                Self.pause(wait)
                wait = min(wait * 2, maximumBackoff)
            }
        }
    }

    /// The remote's addresses in the order they are tried, from the current one (ordered on first use).
    /// - Throws: ``SyncError/notConfigured(_:)`` for an invalid address list.
    func rotation() throws(SyncError) -> AddressRotation {
        if let rotation = current.rotation { return rotation }
        let rotation = try remote.rotation(shuffle: shuffle)
        current.rotation = rotation
        return rotation
    }

    /// `address` answered for this cache's ledger: it stays current.
    func stick(to address: RemoteAddress) {
        _ = try? rotation()
        current.rotation?.stick(to: address)
    }

    /// Runs `body` on a connection `connect` opens. When the session breaks (a failure with a ``retryReason(_:)``:
    /// the connection broke, timed out, or the daemon lost its storage), the next address at once, each connection
    /// of the attempt at most once per address; then the attempt fails with the last reason.
    func movingOnWhenBroken(connect: () throws -> SyncConnection, _ body: (SyncConnection) throws -> Void) throws {
        var broken = 0
        while true {
            let connection = try connect()
            defer { connection.close() }
            do {
                try body(connection)
            } catch {
                guard let reason = Self.retryReason(error) else { throw error }
                current.rotation?.moveOn()
                broken += 1
                guard broken < (try rotation().order.count) else { throw SyncError.unreachable(reason) }
                log("\(connection.address): \(reason); trying the next address")
                continue
            }
            return
        }
    }

    /// Blocks the calling thread (never the cooperative pool: a sync runs on a thread of its own).
    static func pause(_ duration: Duration) { sleepThread(for: duration) }
}

/// The current address of a ``SyncEngine``'s remote. A class, so every copy of one engine (the CLI's, the
/// watcher's, one handed to a thread) moves the same rotation on and starts where the last sync got through.
final class CurrentAddress {
    var rotation: AddressRotation?
}
