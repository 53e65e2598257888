extension SQLiteLedgerStore {
    /// The index of the migration that rebuilds `records` with one money version; a file that ran it is
    /// vacuumed once afterwards (outside the migration's transaction, which VACUUM cannot run in), so the old
    /// table's pages go back to the file system instead of doubling the file.
    static let moneyMigration = 1

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
    ///   table at open (about 50 MB and well under a second for 1M records). The 16-byte blob `id` is unique
    ///   by construction (one row per id). Dates are `YYYYMMDD` integers; per-field versions are small integers
    ///   (a 1 costs no byte at all), one for money (amount and currency together, since migration 1), category,
    ///   date and note.
    /// - `daily_totals` and `monthly_totals` hold, per (day or month, category, currency), the sum and count
    ///   of LIVE records, updated in the same transaction as the records: `summary` reads whole months from
    ///   the monthly table and the partial months at the edges of a range from the daily one, never records.
    /// - `clients` holds each client's last consumed mutationId, written in the same transaction as the effects.
    /// - `outcomes` (migration 2) holds, per client, what was decided for each of its latest consumed mutations
    ///   (``LedgerStore/outcomeRetention``, Protocol.md §7.6), written and pruned in the same transaction as the
    ///   effects. Keyed (client, mutationId), so each client's rows are appended and pruned at the two ends of
    ///   its own range. status: 0 applied (version, seq), 1 conflict (record: the id), 2 rejected (reason,
    ///   field, message).
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
        // pages split); the store then vacuums once (``moneyMigration``). Measured on 1M records: 4.9 s for
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
        // 3 and 4 are other changes' migrations (named tokens and history); these placeholders hold their places
        // until those migrations are merged in here, in this order.
        "-- 3: reserved",
        "-- 4: reserved",
        // 5: budgets, recurring rules and settings (``dataRecordsMigration``).
        dataRecordsMigration,
    ]
}
