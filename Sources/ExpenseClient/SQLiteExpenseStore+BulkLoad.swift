import SQLite

/// A first sync into an empty cache appends the pulled records with the indexes dropped and builds the
/// indexes once at the end: a million inserts into random-UUID B-trees, committed page by page, rewrite
/// most index pages at every commit, while sorting once at the end costs about a second.
///
/// Safe to interrupt: the drop and the ``StoreMetaKey/bulkLoad`` mark are one transaction, every page is
/// committed with its cursor, and the rebuild is two transactions (the id index, then the rest with the
/// unmarking), each building only what is missing. A store opened while marked (interrupted, or still loading in
/// another process) rebuilds its missing indexes before anything else; a sync that is retried within the same run
/// continues the bulk load.
///
/// Another process may write meanwhile (an `add` during a first sync): its write ends the bulk load first
/// (``takeInBulkLoadState()`` builds the indexes it needs), and the loading process notices at its next
/// transaction and carries on record by record.
extension SQLiteExpenseStore {
    package func beginBulkLoad() throws -> Bool {
        let on: Bool = try exclusively { try writing {
            try connection.transaction {
                if try tables.metaValue(.bulkLoad) != nil { return true }
                let empty = try connection.cached("""
                    SELECT NOT EXISTS (SELECT 1 FROM expense) AND NOT EXISTS (SELECT 1 FROM server_copy)
                        AND NOT EXISTS (SELECT 1 FROM outbox WHERE kind = 'expense') AND NOT EXISTS (SELECT 1 FROM conflict)
                    """).first { $0.int64(0) != 0 } ?? false
                guard empty else { return false }
                for index in Self.bulkIndexes where index.table == "expense" {
                    try connection.execute("DROP INDEX IF EXISTS \(index.name)")
                }
                for trigger in Self.bulkTriggers { try connection.execute("DROP TRIGGER IF EXISTS \(trigger.name)") }
                try tables.setMetaValue("1", for: .bulkLoad)
                return true
            }
        } }
        tables.bulkLoading = on
        // A page lost to a power cut is pulled again (its cursor is lost with it): no fsync per page. WAL keeps
        // every commit atomic; FULL comes back with the indexes. Nor does a page's commit checkpoint: the pages
        // stay in the WAL until the index build, beside which a second connection copies them into the file
        // (``endBulkLoad()``). A checkpoint every 1,000 frames was the appends' commits copying and syncing
        // every page a second time on the thread the pull waits for.
        if on { try writing { try connection.execute("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0") } }
        return on
    }

    package func endBulkLoad() throws {
        // This connection's durability and checkpoints come back whichever way the load ends.
        defer { try? writing { try connection.execute("PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=\(Self.autocheckpointFrames)") } }
        guard tables.bulkLoading else { return }  // ended by another process's write
        // The pages appended are copied into the file while the id index is built, and that index's pages
        // while the rest is (BulkLoadCheckpoint: a reader, never in the writer's way), so the two transactions
        // below; an interruption between them leaves the mark, and the next open builds what is missing as after
        // any interrupted load. The checkpoints run one after the other, and are waited for before returning, so
        // no thread outlives the load.
        let checkpoints = location == ":memory:" ? nil : BulkLoadCheckpoint(path: location)
        defer { checkpoints?.wait() }
        try exclusively {
            try writing {
                try connection.execute("PRAGMA synchronous=FULL")
                checkpoints?.start()
                try connection.transaction {
                    guard try tables.metaValue(.bulkLoad) != nil else { return }
                    try Self.withIndexBuildSettings(connection) {
                        for index in Self.bulkIndexes where index.name == "expense_by_id" {
                            if try Self.build(index, connection: connection) { try Self.recountTotals(connection: connection) }
                        }
                    }
                }
                checkpoints?.start()
                try connection.transaction {
                    if try tables.metaValue(.bulkLoad) != nil { try rebuildIndexes() }
                }
            }
        }
        tables.bulkLoading = false
    }

    /// SQLite's automatic checkpoint (after a commit that leaves this many frames in the WAL), which the store
    /// keeps outside a bulk load: SQLite's default.
    static let autocheckpointFrames = 1_000

    /// At the start of every write transaction (under the writer lock): what this process knew about a bulk load
    /// may be stale. A mark another process set (its first sync is loading, or was interrupted) is ended here, so
    /// this write has its indexes; a load this process began and another ended goes on record by record.
    func takeInBulkLoadState() throws {
        let marked = try tables.metaValue(.bulkLoad) != nil
        if tables.bulkLoading {
            if !marked { tables.bulkLoading = false }
        } else if marked {
            try rebuildIndexes()
        }
    }

    /// Builds the indexes and the live-total triggers and clears the mark, inside a transaction. An id pulled
    /// twice (changed on the daemon while the pull went on) makes a unique index fail: then the older rows of
    /// such ids are dropped first (a sort of the whole table, so only when needed) and the live totals, which
    /// counted them, are recounted.
    private func rebuildIndexes() throws {
        try Self.rebuildIndexes(connection: connection, tables: tables)
    }

    /// ``rebuildIndexes()`` on a connection being opened.
    static func rebuildIndexes(connection: SQLiteConnection, tables: SQLiteCacheTables) throws {
        try withIndexBuildSettings(connection) {
            var droppedDuplicates = false
            for index in Self.bulkIndexes {
                let dropped = try build(index, connection: connection)
                droppedDuplicates = droppedDuplicates || (dropped && index.table == "expense")
            }
            // The pages' totals counted every row appended; the dropped ones no longer count.
            if droppedDuplicates { try recountTotals(connection: connection) }
        }
        for trigger in Self.bulkTriggers { try connection.execute(trigger.definition) }
        try tables.setMetaValue(nil, for: .bulkLoad)
    }

    /// Creates `index` if it does not exist; when its table holds an id twice (a unique index fails), the older
    /// rows of such ids are dropped first. Returns whether rows were dropped (the live totals then need a recount).
    private static func build(_ index: (name: String, table: String, definition: String),
                              connection: SQLiteConnection) throws -> Bool {
        do {
            try connection.execute(index.definition)
            return false
        } catch SQLiteError.ResultCode.constraint {
            try dropOlderDuplicates(in: index.table, version: index.table == "expense" ? "base_version" : "version",
                                    connection: connection)
            try connection.execute(index.definition)
            return true
        }
    }

    /// Runs `body` (index builds) with a page cache of ``bulkCacheKiB``, which is also the most keys SQLite's
    /// sorter holds in memory: the keys of a million expenses (about 40 MB for the id index, 26 MB for the day
    /// index) are sorted in runs of that size, spilled to temporary files and merged, by this thread (no sorter
    /// threads: those only take spilled runs, and took the core the pulled pages' checkpoint runs on,
    /// ``BulkLoadCheckpoint``, for no shorter build).
    private static func withIndexBuildSettings<T>(_ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        try connection.withPageCache(kibibytes: Self.bulkCacheKiB, body)
    }

    /// Keeps, of the rows sharing an id, the one with the highest version (the last pulled).
    private static func dropOlderDuplicates(in table: String, version: String, connection: SQLiteConnection) throws {
        try connection.execute("""
            DELETE FROM \(table) WHERE position IN (
                SELECT position FROM (
                    SELECT position, row_number() OVER (PARTITION BY id ORDER BY \(version) DESC, position DESC) AS n
                    FROM \(table))
                WHERE n > 1)
            """)
    }

    /// Page cache while the indexes are built, and the sorter's memory: 4 MiB, whatever the ledger size. Sorting
    /// a million keys in 4 MiB runs and merging them takes no longer than sorting them in one run of 64 MiB (the
    /// runs fit the CPU's caches; the merge reads the files from the kernel's cache) and spares 90 MiB: a first
    /// sync of a million expenses peaks at about 50 MiB of RSS instead of 145.
    private static let bulkCacheKiB = 4_096
}
