/// One figure of the bench's table: its JSON key, what the table calls it and its unit. Its target, when it has one, is
/// data: Benchmarks/thresholds.json (``Thresholds``).
struct Figure: Sendable {
    var key: String
    var label: String
    var unit: String
    /// Decimal places in the table and JSON.
    var decimals: Int

    /// Every figure in the order of the table in docs/performance.md, then the peers.
    static let all: [Figure] = [
        Figure(key: "ping_rps", label: "ping, 50 conns, 1 in flight", unit: "req/s", decimals: 0),
        Figure(key: "ping_pipelined_rps", label: "ping, 50 conns, pipelined 16", unit: "req/s",
               decimals: 0),
        Figure(key: "push_mutations_per_s", label: "push 500/push, 16 conns", unit: "mut/s",
               decimals: 0),
        Figure(key: "push_p50_ms", label: "  push latency p50", unit: "ms", decimals: 2),
        Figure(key: "push_p99_ms", label: "  push latency p99", unit: "ms", decimals: 2),
        Figure(key: "push_daemon_cores", label: "  daemon CPU meanwhile (schedstat)", unit: "cores", decimals: 2),
        Figure(key: "push_busiest_thread_cores", label: "    its busiest thread", unit: "cores", decimals: 2),
        Figure(key: "push_second_thread_cores", label: "    its second busiest thread", unit: "cores", decimals: 2),
        Figure(key: "push_daemon_us_per_mutation", label: "  daemon CPU per mutation", unit: "µs", decimals: 2),
        Figure(key: "push_group_mutations", label: "  mutations per commit (perf: fdatasyncs)", unit: "mut", decimals: 0),
        Figure(key: "single_push_per_s", label: "1-mutation push, 100 conns", unit: "push/s",
               decimals: 0),
        Figure(key: "single_push_p99_ms", label: "  1-mutation push p99", unit: "ms", decimals: 2),
        Figure(key: "single_push_daemon_cores", label: "  daemon CPU meanwhile (schedstat)", unit: "cores", decimals: 2),
        Figure(key: "single_push_busiest_thread_cores", label: "    its busiest thread", unit: "cores", decimals: 2),
        Figure(key: "single_push_second_thread_cores", label: "    its second busiest thread", unit: "cores", decimals: 2),
        Figure(key: "single_push_daemon_us_per_push", label: "  daemon CPU per push", unit: "µs", decimals: 1),
        Figure(key: "single_push_group_size", label: "  pushes per commit (perf: fdatasyncs)", unit: "push", decimals: 1),
        Figure(key: "first_sync_1m_s", label: "first sync of 1M", unit: "s", decimals: 2),
        Figure(key: "first_sync_1m_peak_mib", label: "  client peak RSS", unit: "MiB",
               decimals: 1),
        Figure(key: "start_1m_s", label: "daemon start with 1M, to hello's answer", unit: "s", decimals: 3),
        Figure(key: "start_1m_rss_mib", label: "  daemon RSS after start", unit: "MiB",
               decimals: 1),
        Figure(key: "disk_bytes_per_expense", label: "disk per expense (VACUUM)", unit: "B",
               decimals: 1),
        Figure(key: "disk_history_bytes_per_expense", label: "  with history, +20% edits, 5% deletes", unit: "B", decimals: 1),
        Figure(key: "disk_history_stripped_bytes_per_expense", label: "  the same without history", unit: "B", decimals: 1),
        Figure(key: "disk_one_edit_bytes_per_expense", label: "  one edit of every expense, no delete", unit: "B", decimals: 1),
        Figure(key: "summary_1m_ms", label: "summary by category, 1M", unit: "ms", decimals: 3),
        Figure(key: "add_100k_ms", label: "expense add, 100k cached", unit: "ms", decimals: 1),
        Figure(key: "idle_5000_rss_mib", label: "5000 idle conns: daemon RSS", unit: "MiB",
               decimals: 1),
        Figure(key: "idle_5000_ping_p99_ms", label: "  ping p99 meanwhile", unit: "ms",
               decimals: 3),
        Figure(key: "idle_kib_per_connection", label: "  RSS per idle connection", unit: "KiB", decimals: 2),
        Figure(key: "tls_ping_rps", label: "ping over TLS, 50 conns, 1 in flight", unit: "req/s", decimals: 0),
        Figure(key: "tls_ping_daemon_us_per_ping", label: "  daemon CPU per TLS ping (user + system)", unit: "µs", decimals: 2),
        Figure(key: "tls_added_us_per_ping", label: "  what TLS adds per ping", unit: "µs", decimals: 2),
        Figure(key: "tls_handshakes_per_s", label: "TLS full handshakes, 16 conns", unit: "/s", decimals: 0),
        Figure(key: "tls_handshake_p50_ms", label: "  handshake p50", unit: "ms", decimals: 2),
        Figure(key: "tls_idle_5000_rss_mib", label: "5000 idle TLS conns: daemon RSS", unit: "MiB", decimals: 1),
        Figure(key: "tls_idle_kib_per_connection", label: "  RSS per idle TLS connection", unit: "KiB", decimals: 2),
        Figure(key: "first_sync_1m_tls_s", label: "first sync of 1M over TLS", unit: "s", decimals: 2),
        Figure(key: "pong_ping_rps", label: "generator vs pong server, 1 in flight", unit: "req/s",
               decimals: 0),
        Figure(key: "pong_ping_pipelined_rps", label: "generator vs pong server, pipelined 16", unit: "req/s", decimals: 0),
        Figure(key: "ping_generator_cores", label: "  generator CPU during ping", unit: "cores",
               decimals: 2),
        Figure(key: "ping_daemon_cores", label: "  daemon CPU during ping", unit: "cores", decimals: 2),
        Figure(key: "ping_daemon_us_per_ping", label: "  daemon CPU per ping (user + system)", unit: "µs", decimals: 2),
        // The `storage` section: what SQLite and the disk allow the push figures (``StorageScenario``).
        Figure(key: "sqlite_ceiling_mutations_per_s", label: "raw SQLite ceiling: our rows from C", unit: "mut/s", decimals: 0),
        Figure(key: "sqlite_ceiling_group_mutations", label: "  mutations per commit", unit: "mut", decimals: 0),
        Figure(key: "sqlite_ceiling_writer_cores", label: "  its writer's CPU", unit: "cores", decimals: 2),
        Figure(key: "disk_fdatasync_per_s", label: "disk: 4 KiB overwrite + fdatasync", unit: "/s", decimals: 0),
        Figure(key: "disk_fdatasync_p50_ms", label: "  overwrite + fdatasync p50", unit: "ms", decimals: 3),
        Figure(key: "single_push_disk_bound_per_s", label: "  allows 1-mutation pushes (× pushes per commit)", unit: "push/s",
               decimals: 0),
        Figure(key: "redis_ping_rps", label: "peer: Redis PING, 50 conns", unit: "req/s", decimals: 0),
        Figure(key: "redis_ping_pipelined_rps", label: "peer: Redis PING, pipelined 16", unit: "req/s", decimals: 0),
        Figure(key: "redis_aof_set_rps", label: "peer: Redis SET, fsync always", unit: "req/s",
               decimals: 0),
        Figure(key: "redis_tls_ping_rps", label: "peer: Redis PING over TLS, 50 conns", unit: "req/s", decimals: 0),
        Figure(key: "redis_tls_ping_ratio", label: "  Redis's TLS / plaintext ping", unit: "×", decimals: 2),
        Figure(key: "redis_push_work_rps", label: "peer: Redis doing a push's work, fsync always, 100 conns", unit: "mut/s",
               decimals: 0),
        Figure(key: "redis_push_work_p99_ms", label: "  call p99", unit: "ms", decimals: 2),
        // The `pg` section: the push figures on the PostgreSQL store, against PostgreSQL's own multi-row insert.
        Figure(key: "pg_store_push_mutations_per_s", label: "PG store: push 500/push, 16 conns", unit: "mut/s", decimals: 0),
        Figure(key: "pg_store_push_p50_ms", label: "  push latency p50", unit: "ms", decimals: 2),
        Figure(key: "pg_store_push_p99_ms", label: "  push latency p99", unit: "ms", decimals: 2),
        Figure(key: "pg_store_single_push_per_s", label: "PG store: 1-mutation push, 100 conns", unit: "push/s", decimals: 0),
        Figure(key: "pg_store_single_push_p99_ms", label: "  1-mutation push p99", unit: "ms", decimals: 2),
        Figure(key: "pg_insert_rows_per_s", label: "peer: PostgreSQL 500-row INSERT txns, 16 conns", unit: "rows/s", decimals: 0),
        Figure(key: "pg_insert_p50_ms", label: "  500-row txn p50", unit: "ms", decimals: 2),
        Figure(key: "pg_insert_single_per_s", label: "peer: PostgreSQL 1-row INSERT txns, 100 conns", unit: "txn/s", decimals: 0),
        Figure(key: "pg_insert_single_p99_ms", label: "  1-row txn p99", unit: "ms", decimals: 2),
        Figure(key: "pg_insert_driver_cores", label: "  insert driver CPU (500-row)", unit: "cores",
               decimals: 2),
        Figure(key: "pg_push_work_mutations_per_s", label: "peer: PostgreSQL doing a push's work, 500/txn, 16 conns",
               unit: "mut/s", decimals: 0),
        Figure(key: "pg_push_work_p50_ms", label: "  500-mutation txn p50", unit: "ms", decimals: 2),
        Figure(key: "pg_push_work_driver_cores", label: "  driver CPU", unit: "cores", decimals: 2),
        Figure(key: "pg_push_work_one_conn_mutations_per_s", label: "peer: PostgreSQL doing a push's work, 500/txn, 1 conn",
               unit: "mut/s", decimals: 0),
        Figure(key: "pg_push_work_one_conn_p50_ms", label: "  500-mutation txn p50", unit: "ms", decimals: 2),
    ] + hosted

    /// Whether the figure comes from a peer (measured only with `--peers`).
    var isPeer: Bool { key.hasPrefix("redis_") || key.hasPrefix("pg_") }
    /// Shown only when measured: the peers, and the hosted scenario (`--ledgers N`).
    var isShownOnlyWhenRun: Bool { isPeer || key.hasPrefix("hosted_") }

    /// `--ledgers N` (``HostedScenario``).
    static let hosted = hosted(.directory) + hosted(.postgres)

    /// The hosted figures of one store: on PostgreSQL two daemons (their largest figure each) and the backends
    /// the busier one held.
    static func hosted(_ store: HostedScenario.Store) -> [Figure] {
        let key = store.prefix
        let title = store == .directory ? "hosted: ledgers made (expensed ledger add)"
                                        : "hosted on PostgreSQL (2 daemons): ledgers made"
        return [
            Figure(key: key + "ledgers_per_s", label: title, unit: "ledgers/s", decimals: 1),
            Figure(key: key + "first_adds_ms", label: "  a ledger add, the first 50 (median)", unit: "ms",
                   decimals: 1),
            Figure(key: key + "ledger_add_ms", label: "  a ledger add, the last 50 (median)", unit: "ms",
                   decimals: 1),
            Figure(key: key + "start_ms", label: "  daemon start on them", unit: "ms", decimals: 1),
            Figure(key: key + "start_rss_mib", label: "  RSS after start", unit: "MiB", decimals: 1),
            Figure(key: key + "cold_round_s", label: "  round: hello + push to each (cold)", unit: "s",
                   decimals: 2),
            Figure(key: key + "cold_p50_ms", label: "    per ledger p50", unit: "ms", decimals: 2),
            Figure(key: key + "cold_p99_ms", label: "    per ledger p99", unit: "ms", decimals: 2),
            Figure(key: key + "again_round_s", label: "  the same round again", unit: "s", decimals: 2),
            Figure(key: key + "again_p50_ms", label: "    per ledger p50", unit: "ms", decimals: 2),
            Figure(key: key + "again_p99_ms", label: "    per ledger p99", unit: "ms", decimals: 2),
            Figure(key: key + "rss_mib", label: "  RSS after the rounds", unit: "MiB", decimals: 1),
            Figure(key: key + "peak_rss_mib", label: "  peak RSS", unit: "MiB", decimals: 1),
            Figure(key: key + "threads", label: "  threads after the rounds", unit: "", decimals: 0),
            Figure(key: key + "descriptors", label: "  descriptors after the rounds", unit: "", decimals: 0),
        ] + (store == .directory ? [] : [
            Figure(key: key + "backends_peak", label: "  PostgreSQL backends a daemon held (peak)", unit: "", decimals: 0),
        ])
    }
}
