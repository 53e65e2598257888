/// What a sync is doing, told to ``SyncEngine/Configuration/progress`` as it happens (the CLI draws it on a terminal).
package enum SyncEvent: Sendable, Equatable {
    /// Connecting to `server` and saying `hello`: attempt `attempt` of `attempts`.
    case connecting(server: String, attempt: Int, attempts: Int)
    /// Attempt `attempt - 1` failed for `reason`; attempt `attempt` of `attempts` follows after `wait`.
    case retrying(attempt: Int, attempts: Int, wait: Duration, reason: String)
    /// `sent` of the `total` changes queued when the push began have been answered.
    case pushing(sent: Int, total: Int)
    /// `records` pulled so far; the cursor went from `from` to `cursor`, of the `head` that `hello` announced.
    case pulling(records: Int, from: Int64, cursor: Int64, head: Int64)
    /// Every page is stored; the indexes of a bulk-loaded first sync are being built.
    case indexing
    /// The sync is done (or failed): whatever was drawn goes away.
    case finished
}
