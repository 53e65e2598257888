import SQLite

extension SQLiteExpenseStore {
    /// Brings the cache's schema up to date: a new file (no migration applied, no table) gets the latest schema in
    /// one transaction, ``newCacheSchema``; any other runs the ``migrations`` it lacks. Every first sync makes a new
    /// cache, and running the nineteen migrations there (tables altered column by column, which makes SQLite parse
    /// the whole schema again each time) cost 190 million instructions, about a fifth of a 200,000-expense sync's
    /// own work besides. `NewCacheSchemaTests` holds the two to the same tables, columns, indexes and triggers.
    static func prepareSchema(_ connection: SQLiteConnection) throws {
        let isNew = try connection.userVersion == 0
            && connection.prepare("SELECT count(*) FROM sqlite_master").first { $0.int64(0) } == 0
        guard isNew else { return try connection.migrate(migrations) }
        try connection.transaction {
            try connection.execute(newCacheSchema)
            try connection.execute("PRAGMA user_version = \(migrations.count)")
        }
    }

    /// The schema ``migrations`` leave, written at once (their comments say why each part is as it is): the same
    /// tables with the same columns in the same order, the same indexes (``bulkIndexes``) and the same triggers
    /// (``bulkTriggers``).
    static let newCacheSchema = """
        CREATE TABLE live_total (
            currency TEXT PRIMARY KEY,
            high INTEGER NOT NULL,                   -- sum of amount >> 32 over the live expenses
            low INTEGER NOT NULL,                    -- sum of amount & 0xFFFFFFFF
            count INTEGER NOT NULL                   -- how many live expenses; a row may stay at 0
        ) WITHOUT ROWID;
        CREATE TABLE expense (
            position INTEGER PRIMARY KEY,            -- insertion order, for a stable listing
            id BLOB NOT NULL,                        -- the UUID's 16 bytes; unique by expense_by_id
            amount INTEGER NOT NULL,                 -- minor units of currency
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,                    -- YYYYMMDD, sorts like the date
            note TEXT NOT NULL,
            base_version INTEGER NOT NULL DEFAULT 0, -- server version the local state is based on; 0: never synced
            deleted INTEGER NOT NULL DEFAULT 0,      -- deleted locally (maybe pending) or a pulled tombstone
            seq INTEGER,                             -- the server's copy is this row; NULL: see server_copy
            extras TEXT NOT NULL DEFAULT ''          -- the optional fields (ExpenseExtras)
        );
        CREATE TABLE server_copy (
            position INTEGER PRIMARY KEY,
            id BLOB NOT NULL,                        -- the UUID's 16 bytes; unique by server_copy_by_id
            amount INTEGER NOT NULL, currency TEXT NOT NULL, category TEXT NOT NULL,
            day INTEGER NOT NULL, note TEXT NOT NULL, version INTEGER NOT NULL, seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            extras TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE outbox (
            position INTEGER PRIMARY KEY,
            mutation_id INTEGER,                     -- NULL until the entry is about to be pushed
            state TEXT NOT NULL DEFAULT 'unsent' CHECK (state IN ('unsent', 'sent', 'unknown', 'rejected')),
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            expense_id BLOB NOT NULL,                -- the UUID's 16 bytes
            base_version INTEGER NOT NULL,
            amount INTEGER, currency TEXT, category TEXT, date TEXT, note TEXT,  -- changed fields; NULL: unchanged
            reject_reason TEXT, reject_field TEXT, reject_message TEXT,
            if_absent INTEGER NOT NULL DEFAULT 0,    -- a materialised occurrence's create
            kind TEXT NOT NULL DEFAULT 'expense',
            data_fields TEXT,
            extras TEXT NOT NULL DEFAULT ''          -- the optional fields given (ExpenseExtras)
        );
        CREATE INDEX outbox_by_expense ON outbox(expense_id, position);
        CREATE TABLE conflict (
            expense_id BLOB PRIMARY KEY,             -- the UUID's 16 bytes
            found INTEGER NOT NULL,                  -- order of discovery
            mine_type TEXT NOT NULL, mine_base_version INTEGER NOT NULL,
            mine_amount INTEGER, mine_currency TEXT, mine_category TEXT, mine_date TEXT, mine_note TEXT,
            theirs_amount INTEGER NOT NULL, theirs_currency TEXT NOT NULL, theirs_category TEXT NOT NULL,
            theirs_day INTEGER NOT NULL, theirs_note TEXT NOT NULL, theirs_version INTEGER NOT NULL,
            theirs_seq INTEGER NOT NULL, theirs_deleted INTEGER NOT NULL,
            mine_extras TEXT NOT NULL DEFAULT '', theirs_extras TEXT NOT NULL DEFAULT ''
        ) WITHOUT ROWID;
        CREATE TABLE data_record (
            id BLOB PRIMARY KEY,                     -- the UUID's 16 bytes
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            base_version INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE data_conflict (
            id BLOB PRIMARY KEY,                     -- the UUID's 16 bytes
            kind TEXT NOT NULL,
            mine TEXT,                               -- the fields this machine sent (NULL: a delete)
            theirs TEXT NOT NULL                     -- the record as the daemon had it, as JSON
        ) WITHOUT ROWID;
        CREATE TABLE data_server_copy (
            id BLOB PRIMARY KEY,
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            version INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """ + bulkIndexes.map { $0.definition + ";\n" }.joined() + bulkTriggers.map { $0.definition + ";\n" }.joined()
}
