import SQLite

extension SQLiteLedgerStore {
    /// The last migration that rebuilds `records` (1: one money version; 16: the optional fields in one column; 17:
    /// the field versions in one column); a file that ran one is vacuumed once afterwards (outside the migration's
    /// transaction, which VACUUM cannot run in), so the old table's pages go back to the file system instead of
    /// doubling the file.
    static let lastRebuildingMigration = fieldVersionsMigration

    /// The index of the migration that keeps the optional fields in one column, `extras`.
    static let optionalFieldsMigration = 16

    /// The index of the migration that keeps the field versions in one column, `field_versions`.
    static let fieldVersionsMigration = 17

    /// The schema, one migration per entry, applied in order with `PRAGMA user_version`.
    ///
    /// - Important: Never edit a shipped migration; append a new one. Files written by an older program are
    ///   brought forward at open; a file newer than this program is refused.
    ///
    /// Layout, chosen for ≤ 200 bytes per expense and fast pulls:
    /// - `records` is keyed by `seq` (the rowid), so a pull is a range scan in the table's own order and every
    ///   change appends at the end of the table (an edit deletes the record's old row). There is deliberately
    ///   no index on `id`: client ids are random UUIDs, and keeping such an index dirtied a random index page
    ///   per mutation, so each commit wrote megabytes to the WAL (measured: 35k mutations/s at 200k records,
    ///   falling as the ledger grows). The store keeps the `id → seq` map in memory instead, rebuilt from this
    ///   table at open (about 30 MB and well under a second for 1M records; ``SeqByIdMap``), in the same scan as
    ///   the live totals (below). The 16-byte blob `id` is unique
    ///   by construction (one row per id). Dates are `YYYYMMDD` integers; the field versions, one per conflict
    ///   group (money is amount and currency together, since migration 1), are one text since migration 17, empty
    ///   while every group is at version 1 (``FieldVersions/columnText``).
    /// - The sums and counts of LIVE records per (day or month, category, currency), which `summary` and `stats`
    ///   read, are not in the file: they are a function of `records`, built in memory at open and changed with
    ///   the records (``LiveDayTotals``), so a group commit writes no page for them. Migration 0 kept them in
    ///   `daily_totals` and `monthly_totals`, in the same transaction as the records; their keys are scattered,
    ///   so each commit dirtied about one page per change (~5 KB of the 14.7 KB a single push wrote).
    ///   Migration 8 drops the two tables, and with them moves `user_version` past what older daemons know, so
    ///   none of them opens a file whose totals it would read stale.
    /// - `clients` holds each client's last consumed mutationId, written in the same transaction as the effects.
    /// - `outcomes` (migration 2, replaced by `outcome_runs` in migration 7) held, per client, what was decided
    ///   for each of its latest consumed mutations, one row per mutation keyed (client, mutationId). status: 0
    ///   applied (version, seq), 1 conflict (record: the id), 2 rejected (reason, field, message).
    /// - `outcome_runs` (migration 7) holds the same outcomes (``LedgerStore/outcomeRetention``, Protocol.md §7.6)
    ///   as an append-only log: one row per run of a client's outcomes of mutationIds
    ///   `first_mutation_id…last_mutation_id` packed (``PackedOutcomeRun``), `previous` the client's run before
    ///   (0: none) and `clients.newest_run` its newest. Since migration 15 a client's newest outcomes are its open
    ///   run, held by its `clients` row (`open_first…open_last`, `open_outcomes` packed the same way) until it
    ///   holds a few dozen and is appended here (``OpenOutcomeRun``). Keyed by an increasing `run` (the number of outcomes ever
    ///   appended through the run's last), so a group appends at the end of the table and dirties about one page
    ///   however many clients pushed (the per-client key of `outcomes`
    ///   dirtied one page per client); deliberately no index on `client`, which would do that again. Runs wholly
    ///   outside their client's window are deleted by a sweep in the groups' transactions
    ///   (`SQLiteLedgerStore+OutcomeSweep.swift`).
    /// - `tokens` (migration 3) holds the ledger's named tokens: name, role (`owner`, `editor`, `viewer`), the
    ///   token's SHA-256 (never the token), creation and last use in Unix seconds. The single token older files
    ///   kept in `meta` becomes the owner token `default` when the file is opened
    ///   (``SQLiteLedgerStore/convertLegacyToken(_:connection:)``: SQL has no SHA-256, so that step is Swift's).
    static let migrations: [String] = [
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE records (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            version INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,
            note TEXT NOT NULL,
            amount_version INTEGER NOT NULL,
            currency_version INTEGER NOT NULL,
            category_version INTEGER NOT NULL,
            date_version INTEGER NOT NULL,
            note_version INTEGER NOT NULL
        );
        CREATE TABLE clients (id BLOB PRIMARY KEY, last_mutation_id INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE daily_totals (
            day INTEGER NOT NULL, category TEXT NOT NULL, currency TEXT NOT NULL,
            amount INTEGER NOT NULL, count INTEGER NOT NULL,
            PRIMARY KEY (day, category, currency)
        ) WITHOUT ROWID;
        CREATE TABLE monthly_totals (
            month INTEGER NOT NULL, category TEXT NOT NULL, currency TEXT NOT NULL,
            amount INTEGER NOT NULL, count INTEGER NOT NULL,
            PRIMARY KEY (month, category, currency)
        ) WITHOUT ROWID;
        """,
        // 1: money is one field (Protocol.md §7.4). The amount's and the currency's versions become one, the later
        // of the two (a record whose currency changed at 2 has had its money changed at 2), in one column.
        // The table is copied in seq order rather than altered in place (DROP COLUMN left it 14% larger, its
        // pages split); the store then vacuums once (``lastRebuildingMigration``). Measured on 1M records: 4.9 s for
        // this step and 2.6 s for the vacuum, 72.0 MB before and 70.8 MB after.
        """
        CREATE TABLE records_money (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            version INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,
            note TEXT NOT NULL,
            money_version INTEGER NOT NULL,
            category_version INTEGER NOT NULL,
            date_version INTEGER NOT NULL,
            note_version INTEGER NOT NULL
        );
        INSERT INTO records_money
            SELECT seq, id, version, deleted, amount, currency, category, day, note,
                   max(amount_version, currency_version), category_version, date_version, note_version
            FROM records ORDER BY seq;
        DROP TABLE records;
        ALTER TABLE records_money RENAME TO records;
        """,
        // 2: the outcomes of each client's latest consumed mutations, for `duplicate` answers.
        """
        CREATE TABLE outcomes (
            client BLOB NOT NULL,
            mutation_id INTEGER NOT NULL,
            status INTEGER NOT NULL,
            version INTEGER, seq INTEGER, record BLOB, reason TEXT, field TEXT, message TEXT,
            PRIMARY KEY (client, mutation_id)
        ) WITHOUT ROWID;
        """,
        // 3: named tokens with roles, kept as SHA-256 hashes (docs/daemon.md, "Tokens and roles").
        """
        CREATE TABLE tokens (
            name TEXT PRIMARY KEY,
            role TEXT NOT NULL,
            hash BLOB NOT NULL,
            created INTEGER NOT NULL,
            last_used INTEGER
        ) WITHOUT ROWID;
        """,
        // 4: the history of applied changes (Protocol.md §5.8, `SQLiteLedgerStore+History.swift`), keyed by seq;
        // `history_meta` holds when the history began (changes before it count as made then) and the purge
        // horizon. Measured: see docs/reliability.md ("History and compaction").
        """
        CREATE TABLE history (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            previous INTEGER NOT NULL,
            version INTEGER NOT NULL,
            action INTEGER NOT NULL,
            changes TEXT NOT NULL,
            who TEXT,
            client BLOB NOT NULL,
            time INTEGER NOT NULL
        );
        CREATE TABLE history_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO history_meta (key, value) SELECT 'start_seq', coalesce(max(seq), 0) FROM records;
        INSERT INTO history_meta (key, value) VALUES ('start_time', CAST(strftime('%s', 'now') AS INTEGER));
        """,
        // 5: budgets, recurring rules and settings (``dataRecordsMigration``).
        dataRecordsMigration,
        // 6: history entries of budgets, rules and settings (Protocol.md §5.8): the record's kind, as an index
        // of ``SQLiteLedgerStore/historyKinds`` (0: an expense, which every older row is). Adding a column with a
        // constant default rewrites no row.
        "ALTER TABLE history ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;",
        // 7: kept outcomes as an append-only log of runs: `outcomes`, clustered by client, dirtied a page per
        // pushing client in every group (133 WAL pages for a group from 120 clients; 7 as runs). The rows of
        // `outcomes` are moved into it and the table dropped by Swift in the same transaction
        // (``outcomeRunsMigration``, ``convertOutcomeRows(_:)``: SQL cannot pack them).
        """
        CREATE TABLE outcome_runs (
            run INTEGER PRIMARY KEY,
            client BLOB NOT NULL,
            first_mutation_id INTEGER NOT NULL,
            last_mutation_id INTEGER NOT NULL,
            previous INTEGER NOT NULL,
            outcomes BLOB NOT NULL
        );
        ALTER TABLE clients ADD COLUMN newest_run INTEGER NOT NULL DEFAULT 0;
        """,
        // 8: the per-day and per-month totals are kept in memory, built from `records` at open (see above).
        "DROP TABLE daily_totals; DROP TABLE monthly_totals;",
        // 9: shared expenses: who paid (a member's id) and the split (its canonical text), empty for the
        // expenses before them; the payer's version (the split is money's). Constant defaults rewrite no row.
        """
        ALTER TABLE records ADD COLUMN paid_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE records ADD COLUMN split TEXT NOT NULL DEFAULT '';
        ALTER TABLE records ADD COLUMN paidBy_version INTEGER NOT NULL DEFAULT 1;
        """,
        // 10: the amount charged in the ledger's currency (`--paid`, minor units), 0 for none and for the expenses
        // before it; money's, so no version of its own. A constant default rewrites no row.
        "ALTER TABLE records ADD COLUMN charged INTEGER NOT NULL DEFAULT 0;",
        // 11: tags (their text form: sorted, joined by commas), empty for none and for the expenses before them, and
        // their version (a conflict group of their own). Constant defaults rewrite no row.
        """
        ALTER TABLE records ADD COLUMN tags TEXT NOT NULL DEFAULT '';
        ALTER TABLE records ADD COLUMN tags_version INTEGER NOT NULL DEFAULT 1;
        """,
        // 12: the parts of the amount in other categories (`--part`, their canonical text), empty for none and for
        // the expenses before them; money's, so no version of their own. A constant default rewrites no row.
        "ALTER TABLE records ADD COLUMN parts TEXT NOT NULL DEFAULT '';",
        // 13: the row's original text as an import read it, empty for none and for the expenses before it, and its
        // version (a conflict group of its own). Constant defaults rewrite no row.
        """
        ALTER TABLE records ADD COLUMN source TEXT NOT NULL DEFAULT '';
        ALTER TABLE records ADD COLUMN source_version INTEGER NOT NULL DEFAULT 1;
        """,
        // 14: an expense's creation is its row's first version, not a `history` row (``creationColumnsMigration``).
        // Added columns default to NULL and the index holds no row yet: no existing row is rewritten.
        """
        ALTER TABLE records ADD COLUMN created_seq INTEGER;
        ALTER TABLE records ADD COLUMN created_by TEXT;
        ALTER TABLE records ADD COLUMN created_client BLOB;
        ALTER TABLE records ADD COLUMN created_time INTEGER;
        CREATE INDEX records_created ON records (created_seq) WHERE created_seq > 0;
        """,
        // 15: a client's newest outcomes in its `clients` row, its open run (`open_outcomes` packed as a run's,
        // NULL: none), appended to `outcome_runs` once it holds a few dozen: a single push wrote a run row of its
        // own beside the client's row (`SQLiteLedgerStore+Outcomes.swift`). Constant defaults rewrite no row.
        """
        ALTER TABLE clients ADD COLUMN open_first INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE clients ADD COLUMN open_last INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE clients ADD COLUMN open_outcomes BLOB;
        """,
        // 16: the six optional fields in one text, `extras` (``ExpenseCore/ExpenseExtras``: empty for an expense
        // that uses none): a first sync read and bound fifteen value columns per row where nine had served before
        // them, and a new optional field needed a migration of every store. The field versions stay. The table is
        // copied in seq order, as migration 1's was, and the store vacuums once.
        """
        CREATE TABLE records_extras (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            version INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,
            note TEXT NOT NULL,
            extras TEXT NOT NULL,
            money_version INTEGER NOT NULL,
            category_version INTEGER NOT NULL,
            date_version INTEGER NOT NULL,
            note_version INTEGER NOT NULL,
            paidBy_version INTEGER NOT NULL,
            tags_version INTEGER NOT NULL,
            source_version INTEGER NOT NULL,
            created_seq INTEGER,
            created_by TEXT,
            created_client BLOB,
            created_time INTEGER
        );
        INSERT INTO records_extras
            SELECT seq, id, version, deleted, amount, currency, category, day, note,
                   \(extrasFromColumns),
                   money_version, category_version, date_version, note_version, paidBy_version, tags_version,
                   source_version, created_seq, created_by, created_client, created_time
            FROM records ORDER BY seq;
        DROP TABLE records;
        ALTER TABLE records_extras RENAME TO records;
        CREATE INDEX records_created ON records (created_seq) WHERE created_seq > 0;
        """,
        // 17: the seven field versions in one text, `field_versions` (``FieldVersions/columnText``: empty for a record
        // whose fields are all at version 1, as every creation's): each version was a column whose header byte every
        // row paid, and a new conflict group needed a migration of every store. Copied in seq order, as 16 was, and
        // the store vacuums once.
        """
        CREATE TABLE records_versions (
            seq INTEGER PRIMARY KEY,
            id BLOB NOT NULL,
            version INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,
            note TEXT NOT NULL,
            extras TEXT NOT NULL,
            field_versions TEXT NOT NULL,
            created_seq INTEGER,
            created_by TEXT,
            created_client BLOB,
            created_time INTEGER
        );
        INSERT INTO records_versions
            SELECT seq, id, version, deleted, amount, currency, category, day, note, extras,
                   \(FieldVersions.textOfSeparateColumns { $0 }),
                   created_seq, created_by, created_client, created_time
            FROM records ORDER BY seq;
        DROP TABLE records;
        ALTER TABLE records_versions RENAME TO records;
        CREATE INDEX records_created ON records (created_seq) WHERE created_seq > 0;
        """,
    ]

    /// Migration 16's `extras` of a row with the six columns: an entry for each that is set, in the form
    /// ``ExpenseCore/ExpenseExtras`` reads (frozen here as it was written, as a shipped migration is).
    private static let extrasFromColumns = """
        substr(iif(paid_by <> '', char(31) || 'paidBy=' || paid_by, '')
                   || iif(split <> '', char(31) || 'split=' || split, '')
                   || iif(charged <> 0, char(31) || 'charged=' || charged, '')
                   || iif(tags <> '', char(31) || 'tags=' || tags, '')
                   || iif(parts <> '', char(31) || 'parts=' || parts, '')
                   || iif(source <> '', char(31) || 'source=' || source, ''), 2)
        """

    /// Migration 14: one row per change, not two. Until then a create wrote its `records` row and a `history` row
    /// holding the same values as JSON (about 220 of a ledger's 281 bytes per expense, and a second insert on the
    /// ledger's thread). Now the creation of an expense is implied by its row:
    /// - `created_by`, `created_client` and `created_time` are the create entry's `who`, `clientId` and `time`;
    ///   `created_seq` its seq, 0 while the row is the record's first version (its own seq: a 0 costs no byte).
    ///   Every later version of the record (an edit, a delete, a restore) carries the four forward.
    /// - NULL in all four (every row older than this migration, and its later versions): the creation is a
    ///   `history` row as before, or older than the history (migration 4) or compacted. Old rows keep their
    ///   entries exactly, and the migration rewrites nothing.
    /// - The entry's values are the record's first version: its current (or tombstone) values with the `from`
    ///   of each later change applied newest first (each change names every group it changed, with its value
    ///   before: ``HistoryEntry/changes(from:to:)``), `SQLiteLedgerStore+Creations.swift`.
    /// - `records_created` finds, in seq order, the creations of records changed since (`created_seq > 0`); a
    ///   record never changed is found by its own seq. Only edits write the index, at a place found by the
    ///   creation's seq; a create (the common change) touches no index page.
    /// - Budgets, rules and settings keep a `history` row for their creation: there are a handful of them per
    ///   ledger, so the row costs nothing that matters, and their listing keeps one path.
    static let creationColumnsMigration = 14

    /// The index of the migration that makes `outcome_runs`.
    static let outcomeRunsMigration = 7

    /// The Swift steps of the migrations, each run in its migration's transaction (``SQLite/SQLiteConnection/migrate(_:steps:)``).
    static var migrationSteps: [Int: (SQLiteConnection) throws -> Void] { [outcomeRunsMigration: convertOutcomeRows] }
}
