import ExpenseProtocol

/// Why a sync could not finish. The local store is consistent whatever the error: the queue is intact.
package enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No remote is configured (`expense remote set`, or `EXPENSE_SERVER` and friends) (exit 64).
    case notConfigured(String)
    /// The daemon could not be reached or the connection broke, after the retries (exit 69).
    case unreachable(String)
    /// The server accepted the connection but did not answer `hello` within the connect timeout
    /// (`EXPENSE_CONNECT_TIMEOUT`): given up on at once, not retried (exit 69, like ``unreachable(_:)``).
    case unanswered(String)
    /// Wrong ledger or token (exit 77).
    case unauthorized(String)
    /// The daemon's login throttle refused `hello` without looking at the token, after too many failed attempts
    /// from this address for this ledger; the whole seconds to wait, when the daemon said (exit 69).
    case throttled(retryAfter: Int64?)
    /// The daemon answered with an error or something this client cannot read (exit 76).
    case protocolError(String)
    /// The daemon refused the cache's pull cursor (`invalid_cursor`, `cursor_expired`): its history is not the one
    /// the cache pulled. The sync heals (pulls from 0 and re-sends what the daemon lost) instead of failing; this
    /// only escapes when that fails too (exit 1).
    case historyReplaced(String)
    /// The cache was synced with another server or ledger (`server/ledger` keys); mixing the two is refused (exit 64).
    case otherLedger(synced: String, asked: String)
    /// TLS refused the server (unknown CA, host name mismatch, expired certificate, pin mismatch, plaintext
    /// server…): `code` is the ``TLSError`` code. Never retried, never a fallback to plaintext.
    case tlsRejected(code: String, message: String)
    /// The daemon's disk is full (`storage_full`): nothing of the push was stored; the daemon takes it again as
    /// soon as it has space, with no restart (exit 75).
    case storageFull(String)

    /// A stable snake_case code.
    package var code: String {
        switch self {
        case .notConfigured: "no_remote"
        case .unreachable, .unanswered: "server_unreachable"
        case .unauthorized: "unauthorized"
        case .throttled: "throttled"
        case .protocolError: "protocol_error"
        case .otherLedger: "other_ledger"
        case .historyReplaced: "history_replaced"
        case .tlsRejected(let code, _): code
        case .storageFull: RPCError.storageFullReason
        }
    }

    package var message: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .unanswered(let text), .unauthorized(let text), .protocolError(let text),
             .historyReplaced(let text), .tlsRejected(_, let text), .storageFull(let text): text
        case .throttled(let retryAfter):
            "the server is slowing down logins from this address to this ledger after too many failed attempts; "
                + "try again " + (retryAfter.map { "in \($0) s" } ?? "later")
        case .otherLedger(let synced, let asked):
            "this cache ($EXPENSE_HOME) was synced with \(synced), not \(asked); its records would mix with another "
                + "ledger's. Use a fresh EXPENSE_HOME for \(asked), or set the remote back to \(synced)"
        }
    }

    package var description: String { "\(code): \(message)" }

    /// Whether `expense status` shows this failure until a sync succeeds: the daemon refused or could not store
    /// what was sent (the queue is intact either way).
    package var showsInStatus: Bool {
        switch self {
        case .protocolError, .storageFull: true
        default: false
        }
    }
}
