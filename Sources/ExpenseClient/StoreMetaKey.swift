/// The store's small key-value settings. Raw values are the keys on disk: never rename one.
package enum StoreMetaKey: String, Sendable, Hashable, CaseIterable {
    /// This client's UUID, made once when the store is created.
    case clientId = "client_id"
    /// The `mutationId` the next pending mutation gets (from 1).
    case nextMutationId = "next_mutation_id"
    /// The server cursor up to which changes have been pulled.
    case pullCursor = "pull_cursor"
    /// When the last sync succeeded (ISO 8601).
    case lastSyncTime = "last_sync_time"
    /// The configured default currency (`expense config set currency EUR`).
    case currency
}
