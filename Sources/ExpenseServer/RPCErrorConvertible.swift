import ExpenseProtocol

/// An error that has its own JSON-RPC form (code, reason, message); others are answered −32603 `internal`.
public protocol RPCErrorConvertible: Error {
    /// The error to send to the client. Never contains a token.
    var rpcError: RPCError { get }
}

extension LedgerError: RPCErrorConvertible {
    public var rpcError: RPCError {
        if case .invalidCursor = self { return RPCError(code: code, message: message, reason: reason, field: "since") }
        return RPCError(code: code, message: message, reason: reason)
    }
}
