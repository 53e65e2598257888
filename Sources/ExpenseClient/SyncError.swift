import ExpenseProtocol

/// Why a sync could not finish. The local store is consistent whatever the error: the queue is intact.
package enum SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No remote is configured (`expense remote set`, or `EXPENSE_SERVER` and friends) (exit 64).
    case notConfigured(String)
    /// The daemon could not be reached or the connection broke, after the retries (exit 69).
    case unreachable(String)
    /// Wrong ledger or token (exit 77).
    case unauthorized(String)
    /// The daemon answered with an error or something this client cannot read (exit 1).
    case protocolError(String)

    /// A stable snake_case code.
    package var code: String {
        switch self {
        case .notConfigured: "no_remote"
        case .unreachable: "server_unreachable"
        case .unauthorized: "unauthorized"
        case .protocolError: "protocol_error"
        }
    }

    package var message: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .unauthorized(let text), .protocolError(let text): text
        }
    }

    package var description: String { "\(code): \(message)" }
}
