/// The store's small key-value settings. Raw values are the keys on disk: never rename one.
package enum StoreMetaKey: String, Sendable, Hashable, CaseIterable {
    /// This client's UUID, made once when the store is created.
    case clientId = "client_id"
    /// Unused since the queue numbers entries only when it sends them (kept: the key is on disk).
    case nextMutationId = "next_mutation_id"
    /// The highest `mutationId` this client has given to an entry.
    case lastMutationId = "last_mutation_id"
    /// The server cursor up to which changes have been pulled.
    case pullCursor = "pull_cursor"
    /// When the last sync succeeded (ISO 8601).
    case lastSyncTime = "last_sync_time"
    /// The configured default currency (`expense config set currency EUR`).
    case currency
    /// How money is shown to people (`expense config set locale de_DE`; absent: follow the environment).
    case displayLocale = "locale"
    /// `HOST:PORT` of the daemon (`expense remote set`).
    case server
    /// The ledger name on the daemon.
    case ledger
    /// The ledger the pulled state came from (`server/ledger`), so switching remotes starts over.
    case syncedLedger = "synced_ledger"
    /// Set while a first sync appends into an empty cache with its indexes dropped (SQLite store); an open
    /// store that finds it set (the sync was interrupted) rebuilds the indexes first.
    case bulkLoad = "bulk_load"
}
