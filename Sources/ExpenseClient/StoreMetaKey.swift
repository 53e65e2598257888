/// The store's small key-value settings. Raw values are the keys on disk: never rename one.
package enum StoreMetaKey: String, Sendable, Hashable, CaseIterable {
    /// This client's UUID, made once when the store is created.
    case clientId = "client_id"
    /// The highest `mutationId` this client has given to an entry.
    case lastMutationId = "last_mutation_id"
    /// The server cursor up to which changes have been pulled.
    case pullCursor = "pull_cursor"
    /// When the last sync succeeded (ISO 8601).
    case lastSyncTime = "last_sync_time"
    /// Why the last sync failed for a protocol reason (naming the changes a failed push carried), until a sync
    /// succeeds; `expense status` shows it.
    case lastSyncFailure = "last_sync_failure"
    /// The default currency the person set (`expense config set currency EUR`); it wins over ``ledgerCurrency``.
    case currency
    /// How money is shown to people (`expense config set locale de_DE`; absent: follow the environment).
    case displayLocale = "locale"
    /// Who "I" am on this machine (`expense config set me NAME`): a member's id, the default payer of `add`.
    case me
    /// The currency of the ledger this cache syncs with (`hello`'s `currency`), recorded by each sync: the default
    /// currency when the person set none.
    case ledgerCurrency = "ledger_currency"
    /// The role of the cache's token (`owner`, `editor`, `viewer`) as the last `hello` reported it; absent
    /// before the first sync and with a daemon older than roles. A `viewer` cache refuses local changes.
    case tokenRole = "token_role"
    /// The name of the cache's token as the last `hello` reported it.
    case tokenName = "token_name"
    /// `HOST:PORT` of the daemon (`expense remote set`).
    case server
    /// The ledger name on the daemon.
    case ledger
    /// The address of the remote's list (``server``) that the last sync reached (`HOST:PORT` or `tls://HOST:PORT`):
    /// the next command tries it first (docs/usage.md, "Several addresses").
    case lastServer = "last_server"
    /// The address the pulled state was last synced from (`server/ledger`). Before ``syncedLedgerId`` it was the
    /// binding itself; a cache bound that way is bound to its ledger id at its next `hello` to that address.
    case syncedLedger = "synced_ledger"
    /// The `ledgerId` the pulled state came from (Protocol.md §5.7): the cache's binding, made by a sync
    /// (``LedgerBinding`` reads and writes these keys).
    case syncedLedgerId = "synced_ledger_id"
    /// The `epoch` of the history the pulled state came from.
    case ledgerEpoch = "ledger_epoch"
    /// Set while a heal is due (the daemon's history was replaced): the cursor at or below which the daemon's
    /// records are those of the history this cache knew (Protocol.md §5.7). Removed when the heal is done.
    case healPoint = "heal_point"
    /// Set while a first sync appends into an empty cache with its indexes dropped (SQLite store); an open
    /// store that finds it set (the sync was interrupted) rebuilds the indexes first.
    case bulkLoad = "bulk_load"
    /// This machine's journal of its latest local commands, for `expense undo --last` (`LocalLedger+Journal.swift`).
    case undoJournal = "undo_journal"
    /// Per recurring rule, the last date this cache has materialised its occurrences through
    /// (`LocalLedger+Recurring.swift`): lines `RULE-ID YYYY-MM-DD`.
    case recurringThrough = "recurring_through"
    /// Before the first sync: the ledger id this cache's recurring occurrences are derived from until it learns
    /// the real one (`LocalLedger+Recurring.swift`); the binding re-keys them and removes it.
    case provisionalLedgerId = "provisional_ledger_id"
    /// The ids of the rows the latest journaled `import` created, while its journal entry can still be undone
    /// (``ImportJournal``).
    case lastImport = "last_import"
    /// The kinds besides expenses this cache has pulled from the start of the ledger's history, sorted, comma
    /// separated (``SyncEngine``): a kind the daemon starts serving later is first read from cursor 0.
    case pulledKinds = "pulled_kinds"
}
