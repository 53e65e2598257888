/// What `serve` does to its ledgers besides serving them: compaction (`--compact-after`) and closing those
/// nobody uses (`--idle-ledger-close`, `--max-open-ledgers`), the same for a data directory and PostgreSQL.
struct LedgerUpkeep {
    /// `--idle-ledger-close` when not given: five minutes.
    static let defaultIdleClose = 300
    /// `--max-open-ledgers` when not given: each open ledger holds a thread and its files (or, on PostgreSQL,
    /// a backend), so the bound keeps a host of many ledgers within its limits.
    static let defaultMaximumOpen = 500

    /// `--pg-connections` when not given: with the daemon's LISTEN connection, 16 backends a daemon (the login
    /// throttle leases from the pool too), so several daemons fit PostgreSQL's default `max_connections` (100).
    static let defaultPostgresConnections = 15

    /// Days of history kept by the compaction schedule, or `nil` for none.
    var compactAfter: Int?
    /// Seconds unused after which a ledger is closed; 0 for never.
    var idleClose: Int
    var maximumOpen: Int
    /// The PostgreSQL connections the open ledgers share (`serve --postgres`).
    var postgresConnections = defaultPostgresConnections

    var idle: Duration? { idleClose == 0 ? nil : .seconds(idleClose) }
}
