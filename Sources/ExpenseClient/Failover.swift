/// How a client goes through the addresses of a remote (docs/usage.md, "Several addresses"): each address is tried in
/// turn; a failure of availability moves on to the next, any other failure ends the attempt.
package enum Failover {
    /// The `data.reason` of a daemon whose storage is down (Protocol.md, error table): nothing was acknowledged.
    package static let storageUnavailableReason = "storage_unavailable"

    /// Runs `body` for each of `addresses` in turn until one succeeds; a failure that moves on
    /// (``SyncError/movesOn``) is told to `failed` and the next address is tried.
    /// - Throws: the first failure that does not move on (whatever `body` throws); when every address failed,
    ///   ``combined(_:)``.
    package static func first<T>(of addresses: [RemoteAddress], failed: (RemoteAddress, SyncError) -> Void = { _, _ in },
                                 _ body: (RemoteAddress) throws -> T) throws -> T {
        var failures: [(RemoteAddress, SyncError)] = []
        for address in addresses {
            do {
                return try body(address)
            } catch let error as SyncError where error.movesOn {
                failures.append((address, error))
                failed(address, error)
            }
        }
        throw combined(failures)
    }

    /// One error for a pass in which every address failed: the only one's own error; an address of another
    /// ledger wins (the list needs fixing, and a retry would not help); else `unreachable` when any address
    /// was (so the attempt is retried), else `unanswered`; the message names each address's failure.
    package static func combined(_ failures: [(RemoteAddress, SyncError)]) -> SyncError {
        guard failures.count > 1 else { return failures.first?.1 ?? .notConfigured("the remote has no address") }
        if let other = failures.first(where: { if case .otherLedger = $0.1 { true } else { false } }) { return other.1 }
        let text = "no address of the list answered: " + failures.map { "\($0.0): \($0.1.message)" }.joined(separator: "; ")
        let unreachable = failures.contains { if case .unreachable = $0.1 { true } else { false } }
        return unreachable ? .unreachable(text) : .unanswered(text)
    }
}

extension SyncError {
    /// Whether the next address of the list may succeed where this failed: the address could not be reached,
    /// broke, timed out, was busy or without its storage (``unreachable(_:)``), did not answer `hello`
    /// (``unanswered(_:)``), or serves another ledger (``otherLedger(synced:asked:)``: refused, never mixed).
    /// A refused token, the login throttle, TLS refusing a certificate, a full disk behind the daemon (its peers
    /// share its storage) and protocol errors end the attempt:
    /// moving on would hide them (and multiply guesses against the throttle).
    package var movesOn: Bool {
        switch self {
        case .unreachable, .unanswered, .otherLedger: true
        case .notConfigured, .unauthorized, .throttled, .protocolError, .historyReplaced, .tlsRejected, .storageFull: false
        }
    }
}
