extension SQLiteExpenseStore {
    /// The cache's forward-only migrations; `PRAGMA user_version` counts those applied.
    /// Never edit a shipped migration: append a new one, and make ``newCacheSchema`` (what a new cache is made
    /// with) the schema they leave, which `NewCacheSchemaTests` checks.
    static let migrations: [String] = [
        """
        CREATE TABLE expense (
            position INTEGER PRIMARY KEY,            -- insertion order, for a stable listing
            id TEXT NOT NULL UNIQUE,                 -- lower-case UUID
            amount INTEGER NOT NULL,                 -- minor units of currency
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,                    -- YYYYMMDD, sorts like the date
            note TEXT NOT NULL,
            base_version INTEGER NOT NULL DEFAULT 0, -- server version the local state is based on; 0: never synced
            deleted INTEGER NOT NULL DEFAULT 0       -- deleted locally (maybe pending) or a pulled tombstone
        );
        CREATE INDEX expense_by_day ON expense(deleted, day, position);
        CREATE INDEX expense_by_category ON expense(deleted, category, day, position);
        CREATE TABLE pending_mutation (
            mutation_id INTEGER PRIMARY KEY,
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            expense_id TEXT NOT NULL,
            base_version INTEGER NOT NULL,
            amount INTEGER, currency TEXT, category TEXT, date TEXT, note TEXT  -- changed fields; NULL: unchanged
        );
        CREATE INDEX pending_mutation_by_expense ON pending_mutation(expense_id);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        """,
        // 2: sync. The server's last-seen copy of each record apart from the local view; the queue becomes an
        // outbox numbered only when sent (entries of migration 1 were never sent: they move over unsent, in
        // order); open conflicts keep both sides.
        """
        CREATE TABLE server_copy (
            id TEXT PRIMARY KEY, amount INTEGER NOT NULL, currency TEXT NOT NULL, category TEXT NOT NULL,
            day INTEGER NOT NULL, note TEXT NOT NULL, version INTEGER NOT NULL, seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE outbox (
            position INTEGER PRIMARY KEY,
            mutation_id INTEGER,                     -- NULL until the entry is about to be pushed
            state TEXT NOT NULL DEFAULT 'unsent' CHECK (state IN ('unsent', 'sent', 'unknown', 'rejected')),
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            expense_id TEXT NOT NULL,
            base_version INTEGER NOT NULL,
            amount INTEGER, currency TEXT, category TEXT, date TEXT, note TEXT,  -- changed fields; NULL: unchanged
            reject_reason TEXT, reject_field TEXT, reject_message TEXT
        );
        CREATE INDEX outbox_by_expense ON outbox(expense_id, position);
        INSERT INTO outbox(position, type, expense_id, base_version, amount, currency, category, date, note)
            SELECT mutation_id, type, expense_id, base_version, amount, currency, category, date, note
            FROM pending_mutation ORDER BY mutation_id;
        DROP TABLE pending_mutation;
        CREATE TABLE conflict (
            expense_id TEXT PRIMARY KEY,
            found INTEGER NOT NULL,                  -- order of discovery
            mine_type TEXT NOT NULL, mine_base_version INTEGER NOT NULL,
            mine_amount INTEGER, mine_currency TEXT, mine_category TEXT, mine_date TEXT, mine_note TEXT,
            theirs_amount INTEGER NOT NULL, theirs_currency TEXT NOT NULL, theirs_category TEXT NOT NULL,
            theirs_day INTEGER NOT NULL, theirs_note TEXT NOT NULL, theirs_version INTEGER NOT NULL,
            theirs_seq INTEGER NOT NULL, theirs_deleted INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 3: the uniqueness of ids moves from the tables into named indexes, so a first sync into an empty
        // cache can append rows with the indexes dropped and build them once at the end (sorting beats a
        // million random B-tree inserts). server_copy becomes a rowid table for the same reason.
        """
        CREATE TABLE expense_v3 (
            position INTEGER PRIMARY KEY,            -- insertion order, for a stable listing
            id TEXT NOT NULL,                        -- lower-case UUID; unique by expense_by_id
            amount INTEGER NOT NULL,                 -- minor units of currency
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,                    -- YYYYMMDD, sorts like the date
            note TEXT NOT NULL,
            base_version INTEGER NOT NULL DEFAULT 0, -- server version the local state is based on; 0: never synced
            deleted INTEGER NOT NULL DEFAULT 0       -- deleted locally (maybe pending) or a pulled tombstone
        );
        INSERT INTO expense_v3 SELECT position, id, amount, currency, category, day, note, base_version, deleted FROM expense;
        DROP TABLE expense;
        ALTER TABLE expense_v3 RENAME TO expense;
        CREATE UNIQUE INDEX expense_by_id ON expense(id);
        CREATE INDEX expense_by_day ON expense(deleted, day, position);
        CREATE INDEX expense_by_category ON expense(deleted, category, day, position);
        CREATE TABLE server_copy_v3 (
            position INTEGER PRIMARY KEY,
            id TEXT NOT NULL,                        -- unique by server_copy_by_id
            amount INTEGER NOT NULL, currency TEXT NOT NULL, category TEXT NOT NULL,
            day INTEGER NOT NULL, note TEXT NOT NULL, version INTEGER NOT NULL, seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL
        );
        INSERT INTO server_copy_v3(id, amount, currency, category, day, note, version, seq, deleted)
            SELECT id, amount, currency, category, day, note, version, seq, deleted FROM server_copy ORDER BY seq;
        DROP TABLE server_copy;
        ALTER TABLE server_copy_v3 RENAME TO server_copy;
        CREATE UNIQUE INDEX server_copy_by_id ON server_copy(id);
        """,
        // 4: an expense with no queue entry and no open conflict is usually exactly the server's record; it then
        // keeps the record's `seq` in its own row (base_version is the version) instead of a server_copy row, so a
        // first sync writes one table and builds no server_copy index. NULL: the server copy, if any, is in
        // server_copy (the two never both hold one).
        """
        ALTER TABLE expense ADD COLUMN seq INTEGER;
        """,
        // 5: listing one category walks expense_by_day and filters (a first sync of 1,000,000 expenses spent a
        // third of its index time on expense_by_category; summaries scan the table anyway).
        """
        DROP INDEX IF EXISTS expense_by_category;
        """,
        // 6: listings and summaries only read live expenses (`WHERE deleted = 0`), so the day index holds only
        // those, keyed (day, position). Building it sorts on day first: the old key began with `deleted`, equal
        // in almost every row, which cost a first sync of 1,000,000 expenses ~0.25 s more to build.
        """
        DROP INDEX IF EXISTS expense_by_day;
        CREATE INDEX IF NOT EXISTS expense_live_by_day ON expense(day, position) WHERE deleted = 0;
        """,
        // 7: the local overflow rule (LocalLedger+Limits.swift) needs each currency's live total on every add, edit
        // and import; summing the currency's rows in SQL made `expense add` on a 100,000-expense cache cost 0.32 s
        // of CPU (0.63 s wall; medians of 15 release runs under farm-bench on a loaded 2-core machine). live_total
        // keeps, per currency, the live rows' count and their amounts summed in two parts (above and below bit 32;
        // LiveTotal.swift), so the exact total, even one past Int64, is high * 2^32 + low and no column overflows
        // before 2^31 rows. Triggers on expense keep it in the same transaction as every change of a row (putRecord,
        // putSettled, a dropped duplicate); a bulk load drops them with the indexes, adds each page's totals itself
        // (one upsert per currency of the page), recounts only when it dropped duplicate rows, and builds them back
        // at the end (bulkTriggers). Built here from the existing rows with one GROUP BY: ~0.1 s of CPU (0.3-0.45 s
        // wall) on a 100,000-expense cache, once. Measured after: `expense add` on that cache 0.021 s CPU, 0.055 s
        // wall (paired with the old binary, CPU ratio 0.07); a first sync of 100,000 records with the real binaries
        // 0.78 s CPU of the client before and after (paired ratio 0.99, 9 runs): the bulk path is not slower.
        """
        CREATE TABLE live_total (
            currency TEXT PRIMARY KEY,
            high INTEGER NOT NULL,                   -- sum of amount >> 32 over the live expenses
            low INTEGER NOT NULL,                    -- sum of amount & 0xFFFFFFFF
            count INTEGER NOT NULL                   -- how many live expenses; a row may stay at 0
        ) WITHOUT ROWID;
        INSERT INTO live_total(currency, high, low, count)
            SELECT currency, sum(amount >> 32), sum(amount & 4294967295), count(*) FROM expense WHERE deleted = 0
            GROUP BY currency;
        CREATE TRIGGER IF NOT EXISTS live_total_insert AFTER INSERT ON expense WHEN NEW.deleted = 0 BEGIN
            INSERT INTO live_total(currency, high, low, count)
                VALUES (NEW.currency, NEW.amount >> 32, NEW.amount & 4294967295, 1)
                ON CONFLICT(currency) DO UPDATE SET high = high + excluded.high, low = low + excluded.low,
                    count = count + 1;
        END;
        CREATE TRIGGER IF NOT EXISTS live_total_delete AFTER DELETE ON expense WHEN OLD.deleted = 0 BEGIN
            UPDATE live_total SET high = high - (OLD.amount >> 32), low = low - (OLD.amount & 4294967295),
                count = count - 1 WHERE currency = OLD.currency;
        END;
        CREATE TRIGGER IF NOT EXISTS live_total_update AFTER UPDATE OF amount, currency, deleted ON expense
            WHEN OLD.amount IS NOT NEW.amount OR OLD.currency IS NOT NEW.currency OR OLD.deleted IS NOT NEW.deleted
        BEGIN
            UPDATE live_total SET high = high - (OLD.amount >> 32), low = low - (OLD.amount & 4294967295),
                count = count - 1 WHERE currency = OLD.currency AND OLD.deleted = 0;
            INSERT INTO live_total(currency, high, low, count)
                SELECT NEW.currency, NEW.amount >> 32, NEW.amount & 4294967295, 1 WHERE NEW.deleted = 0
                ON CONFLICT(currency) DO UPDATE SET high = high + excluded.high, low = low + excluded.low,
                    count = count + 1;
        END;
        """,
        // 8: budgets, recurring rules and settings (Protocol.md §10; LedgerDataCache.swift).
        LedgerDataCache.migration,
        // 9: a materialised recurring occurrence's create is queued with `ifAbsent` (Protocol.md §10.4;
        // PendingMutation.ifAbsent, LocalLedger+Recurring.swift). Existing entries are plain changes: 0.
        """
        ALTER TABLE outbox ADD COLUMN if_absent INTEGER NOT NULL DEFAULT 0;
        """,
        // 10: ids as 16-byte blobs in every id column (SQLiteExpenseStore+BlobIds.swift).
        blobIdsMigration,
        // 11: the live day index keyed by day alone. Every entry of an index ends with its row's rowid, which is
        // `position` (the INTEGER PRIMARY KEY), so an index on (day) already orders a day's rows by position and
        // serves `ORDER BY day, position` without a sort, as (day, position) did; that key held the position twice
        // and compared it twice on every tie (a day holds ~1,370 of a million expenses). It is part of why a first
        // sync's index build fell from 7.44k to 6.76k instructions per expense (at 100,000 expenses).
        // A cache left mid-first-sync (indexes dropped, marked) gets it here over the rows it holds; the same open
        // then ends the bulk load (SQLiteExpenseStore+BulkLoad.swift).
        """
        DROP INDEX IF EXISTS expense_live_by_day;
        CREATE INDEX expense_live_by_day ON expense(day) WHERE deleted = 0;
        """,
        // 12: one outbox for every kind of record (Protocol.md §10). Budget, rule and setting changes queued in
        // `data_pending` move to the end of `outbox`, in their order, unsent: their numbers belonged to a second
        // client id that no longer sends, and what the daemon already took of them comes back `applied` without
        // a change (the same fields at the same base), or as a conflict whose daemon side already holds the
        // values the record's queued changes end with, which is no conflict (``keepDataConflict``). The server's copy of each such record gets a table of its
        // own, as expenses have; rows are seeded from the view, and the first sync reads every record of those
        // kinds again from cursor 0 (`pulled_kinds` is unset), which replaces them with the daemon's.
        """
        ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'expense';  -- expense_id: the id of the record, of any kind
        ALTER TABLE outbox ADD COLUMN data_fields TEXT;          -- a budget's, rule's or setting's changed fields (JSON)
        WITH last AS (SELECT coalesce(max(position), 0) AS position FROM outbox)
        INSERT INTO outbox(position, state, type, expense_id, base_version, kind, data_fields)
            SELECT last.position + row_number() OVER (ORDER BY p.position), 'unsent', p.type, p.id, p.base_version,
                   p.kind, p.fields
            FROM data_pending p, last ORDER BY p.position;
        DROP TABLE data_pending;
        CREATE TABLE data_server_copy (
            id BLOB PRIMARY KEY,
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            version INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO data_server_copy SELECT id, kind, fields, base_version, 0, deleted FROM data_record WHERE base_version > 0;
        DELETE FROM meta WHERE key = 'data_cursor';
        """,
        // 13: shared expenses: who paid and the split, in every table that holds an expense (empty: none) or
        // a draft of one (NULL: not changed).
        """
        ALTER TABLE expense ADD COLUMN paid_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE expense ADD COLUMN split TEXT NOT NULL DEFAULT '';
        ALTER TABLE server_copy ADD COLUMN paid_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE server_copy ADD COLUMN split TEXT NOT NULL DEFAULT '';
        ALTER TABLE outbox ADD COLUMN paid_by TEXT;
        ALTER TABLE outbox ADD COLUMN split TEXT;
        ALTER TABLE conflict ADD COLUMN mine_paid_by TEXT;
        ALTER TABLE conflict ADD COLUMN mine_split TEXT;
        ALTER TABLE conflict ADD COLUMN theirs_paid_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE conflict ADD COLUMN theirs_split TEXT NOT NULL DEFAULT '';
        """,
        // 14: the amount charged in the ledger's currency (`--paid`, minor units), in every table that holds an
        // expense (0: none) or a draft of one (NULL: not changed).
        """
        ALTER TABLE expense ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE server_copy ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE outbox ADD COLUMN charged INTEGER;
        ALTER TABLE conflict ADD COLUMN mine_charged INTEGER;
        ALTER TABLE conflict ADD COLUMN theirs_charged INTEGER NOT NULL DEFAULT 0;
        """,
        // 15: tags (their text form: sorted, joined by commas), in every table that holds an expense (empty: none) or
        // a draft of one (NULL: not changed).
        """
        ALTER TABLE expense ADD COLUMN tags TEXT NOT NULL DEFAULT '';
        ALTER TABLE server_copy ADD COLUMN tags TEXT NOT NULL DEFAULT '';
        ALTER TABLE outbox ADD COLUMN tags TEXT;
        ALTER TABLE conflict ADD COLUMN mine_tags TEXT;
        ALTER TABLE conflict ADD COLUMN theirs_tags TEXT NOT NULL DEFAULT '';
        """,
        // 16: the parts of the amount in other categories (`--part`, their canonical text), in every table that
        // holds an expense (empty: none) or a draft of one (NULL: not changed).
        """
        ALTER TABLE expense ADD COLUMN parts TEXT NOT NULL DEFAULT '';
        ALTER TABLE server_copy ADD COLUMN parts TEXT NOT NULL DEFAULT '';
        ALTER TABLE outbox ADD COLUMN parts TEXT;
        ALTER TABLE conflict ADD COLUMN mine_parts TEXT;
        ALTER TABLE conflict ADD COLUMN theirs_parts TEXT NOT NULL DEFAULT '';
        """,
        // 17: the row's original text as an import read it, in every table that holds an expense (empty: none) or
        // a draft of one (NULL: not changed).
        """
        ALTER TABLE expense ADD COLUMN source TEXT NOT NULL DEFAULT '';
        ALTER TABLE server_copy ADD COLUMN source TEXT NOT NULL DEFAULT '';
        ALTER TABLE outbox ADD COLUMN source TEXT;
        ALTER TABLE conflict ADD COLUMN mine_source TEXT;
        ALTER TABLE conflict ADD COLUMN theirs_source TEXT NOT NULL DEFAULT '';
        """,
        // 18: `meta` keeps rowids. Its rows were its key's B-tree (`WITHOUT ROWID`), where a lookup compares the
        // key it seeks with whole rows: one that overflows (the last import's ids, ~39 bytes per imported
        // expense) was read in full by every lookup that passed it, a dozen times per `add` after a large import
        // (47 MB read for one `add` after 100,000 imported). Now a lookup searches the key's index and reads one row.
        """
        CREATE TABLE meta_with_rowids (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta_with_rowids (key, value) SELECT key, value FROM meta;
        DROP TABLE meta;
        ALTER TABLE meta_with_rowids RENAME TO meta;
        """,
        // 19: the six optional fields in one text, `extras` (``ExpenseCore/ExpenseExtras``), in every table that
        // holds an expense (empty: none set) or a draft of one (an entry for each field given): a first sync bound
        // fifteen columns per row where nine had served before them, and a new optional field needed a migration.
        """
        ALTER TABLE expense ADD COLUMN extras TEXT NOT NULL DEFAULT '';
        UPDATE expense SET extras = \(extras(""));
        \(droppingOptionalColumns(of: "expense"))
        ALTER TABLE server_copy ADD COLUMN extras TEXT NOT NULL DEFAULT '';
        UPDATE server_copy SET extras = \(extras(""));
        \(droppingOptionalColumns(of: "server_copy"))
        ALTER TABLE outbox ADD COLUMN extras TEXT NOT NULL DEFAULT '';
        UPDATE outbox SET extras = \(extras("", draft: true));
        \(droppingOptionalColumns(of: "outbox"))
        ALTER TABLE conflict ADD COLUMN mine_extras TEXT NOT NULL DEFAULT '';
        ALTER TABLE conflict ADD COLUMN theirs_extras TEXT NOT NULL DEFAULT '';
        UPDATE conflict SET mine_extras = \(extras("mine_", draft: true)), theirs_extras = \(extras("theirs_"));
        \(droppingOptionalColumns(of: "conflict", prefix: "mine_"))
        \(droppingOptionalColumns(of: "conflict", prefix: "theirs_"))
        """,
    ]

    /// Migration 19's `extras` of a row with the six columns named after `prefix`: an entry for each field set (a
    /// draft's: each given, NULL being not given), in the form ``ExpenseCore/ExpenseExtras`` reads, frozen here as
    /// it was written, as a shipped migration is.
    private static func extras(_ prefix: String, draft: Bool = false) -> String {
        let entries = [("paid_by", "paidBy"), ("split", "split"), ("charged", "charged"), ("tags", "tags"), ("parts", "parts"),
                       ("source", "source")].map { column, name in
            let set = draft ? "\(prefix)\(column) IS NOT NULL" : "\(prefix)\(column) <> \(column == "charged" ? "0" : "''")"
            return "iif(\(set), char(31) || '\(name)=' || \(prefix)\(column), '')"
        }
        return "substr(" + entries.joined(separator: " || ") + ", 2)"
    }

    /// Migration 19's drops of the six columns after `prefix` in `table`.
    private static func droppingOptionalColumns(of table: String, prefix: String = "") -> String {
        ["paid_by", "split", "charged", "tags", "parts", "source"].map { "ALTER TABLE \(table) DROP COLUMN \(prefix)\($0);" }
            .joined(separator: "\n")
    }

    /// The indexes a bulk load drops and rebuilds (``SQLiteExpenseStore/beginBulkLoad()``), as created by the
    /// latest migration.
    static let bulkIndexes: [(name: String, table: String, definition: String)] = [
        ("expense_by_id", "expense", "CREATE UNIQUE INDEX IF NOT EXISTS expense_by_id ON expense(id)"),
        ("expense_live_by_day", "expense",
         "CREATE INDEX IF NOT EXISTS expense_live_by_day ON expense(day) WHERE deleted = 0"),
        // server_copy_by_id is not dropped: a bulk load writes no server_copy rows (migration 4). A store marked by
        // an older version (which dropped it) gets it back here.
        ("server_copy_by_id", "server_copy", "CREATE UNIQUE INDEX IF NOT EXISTS server_copy_by_id ON server_copy(id)"),
    ]

    /// The triggers keeping `live_total` (migration 7), which a bulk load drops with the indexes (it adds each
    /// page's totals itself, ``SQLiteCacheTables/putSettled(_:)``) and builds back, as the latest migration
    /// created them.
    static let bulkTriggers: [(name: String, definition: String)] = [
        ("live_total_insert", """
            CREATE TRIGGER IF NOT EXISTS live_total_insert AFTER INSERT ON expense WHEN NEW.deleted = 0 BEGIN
                INSERT INTO live_total(currency, high, low, count)
                    VALUES (NEW.currency, NEW.amount >> 32, NEW.amount & 4294967295, 1)
                    ON CONFLICT(currency) DO UPDATE SET high = high + excluded.high, low = low + excluded.low,
                        count = count + 1;
            END
            """),
        ("live_total_delete", """
            CREATE TRIGGER IF NOT EXISTS live_total_delete AFTER DELETE ON expense WHEN OLD.deleted = 0 BEGIN
                UPDATE live_total SET high = high - (OLD.amount >> 32), low = low - (OLD.amount & 4294967295),
                    count = count - 1 WHERE currency = OLD.currency;
            END
            """),
        ("live_total_update", """
            CREATE TRIGGER IF NOT EXISTS live_total_update AFTER UPDATE OF amount, currency, deleted ON expense
                WHEN OLD.amount IS NOT NEW.amount OR OLD.currency IS NOT NEW.currency OR OLD.deleted IS NOT NEW.deleted
            BEGIN
                UPDATE live_total SET high = high - (OLD.amount >> 32), low = low - (OLD.amount & 4294967295),
                    count = count - 1 WHERE currency = OLD.currency AND OLD.deleted = 0;
                INSERT INTO live_total(currency, high, low, count)
                    SELECT NEW.currency, NEW.amount >> 32, NEW.amount & 4294967295, 1 WHERE NEW.deleted = 0
                    ON CONFLICT(currency) DO UPDATE SET high = high + excluded.high, low = low + excluded.low,
                        count = count + 1;
            END
            """),
    ]
}
