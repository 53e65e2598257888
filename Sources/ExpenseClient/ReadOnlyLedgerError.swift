/// A local change refused up front because the cache's token may only read its ledger (the role `viewer`
/// that `hello` reported, Protocol.md §4 "Roles"): the daemon would refuse its push as a whole (−32006
/// `forbidden`), so nothing is queued that could never be sent.
package struct ReadOnlyLedgerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The token's name, as `hello` reported it (when it did).
    package var tokenName: String?

    /// The stable code: the daemon's `forbidden`.
    package var code: String { "forbidden" }

    package var message: String {
        "this cache's token" + (tokenName.map { " ('\($0)')" } ?? "") + " is a viewer's: it may read the ledger but not "
            + "change it, so nothing was changed or queued; ask the ledger's owner for an editor token "
            + "(`expensed token add NAME --ledger L --role editor`) and set it with `expense remote set`"
    }

    package var description: String { "\(code): \(message)" }
}
