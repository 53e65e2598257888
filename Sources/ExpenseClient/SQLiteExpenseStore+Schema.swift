extension SQLiteExpenseStore {
    /// The cache's forward-only migrations; `PRAGMA user_version` counts those applied.
    /// Never edit a shipped migration: append a new one (issue 4's conflicts table will be migration 2).
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
    ]
}
