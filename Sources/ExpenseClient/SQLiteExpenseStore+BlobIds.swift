import ExpenseCore
import SQLite

/// Migration 10: every id column of the cache holds the id's 16 bytes as a BLOB (``ExpenseCore/UUIDBlob``,
/// bound and read only through `SQLiteValue.id` and `SQLiteRow.id`) instead of its 36 characters of text:
/// smaller rows and indexes (a cache of 100,000 expenses 29 % smaller, its id index 45 %), and a first sync's
/// index build sorts 16-byte keys.
///
/// Each table is copied into one of the same columns with the id converted by `uuid_blob`, a function this
/// program defines on its connection (SQLite 3.40 has no `unhex`; ``defineFunctions(on:)``), in the order of
/// its rowid, so positions, outbox order and discovery order of conflicts are kept. A text that is not a UUID
/// fails the function and rolls the migration back: the cache is then reported unreadable, never half-converted.
///
/// The expense and server_copy indexes and the live-total triggers are not made here: the migration sets the
/// bulk-load mark, and the open that ran it builds them as after an interrupted first sync
/// (``rebuildIndexes(connection:transaction:)``, from ``bulkIndexes`` and ``bulkTriggers``). A cache left
/// mid-first-sync by the previous version (indexes dropped, an id possibly appended twice) is finished the
/// same way. `live_total` is kept as it is: copying rows fires no trigger.
extension SQLiteExpenseStore {
    static let blobIdsMigration = """
        CREATE TABLE expense_v10 (
            position INTEGER PRIMARY KEY,            -- insertion order, for a stable listing
            id BLOB NOT NULL,                        -- the UUID's 16 bytes; unique by expense_by_id
            amount INTEGER NOT NULL,                 -- minor units of currency
            currency TEXT NOT NULL,
            category TEXT NOT NULL,
            day INTEGER NOT NULL,                    -- YYYYMMDD, sorts like the date
            note TEXT NOT NULL,
            base_version INTEGER NOT NULL DEFAULT 0, -- server version the local state is based on; 0: never synced
            deleted INTEGER NOT NULL DEFAULT 0,      -- deleted locally (maybe pending) or a pulled tombstone
            seq INTEGER                              -- the server's copy is this row (migration 4); NULL: see server_copy
        );
        INSERT INTO expense_v10(position, id, amount, currency, category, day, note, base_version, deleted, seq)
            SELECT position, uuid_blob(id), amount, currency, category, day, note, base_version, deleted, seq
            FROM expense ORDER BY position;
        DROP TABLE expense;
        ALTER TABLE expense_v10 RENAME TO expense;

        CREATE TABLE server_copy_v10 (
            position INTEGER PRIMARY KEY,
            id BLOB NOT NULL,                        -- the UUID's 16 bytes; unique by server_copy_by_id
            amount INTEGER NOT NULL, currency TEXT NOT NULL, category TEXT NOT NULL,
            day INTEGER NOT NULL, note TEXT NOT NULL, version INTEGER NOT NULL, seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL
        );
        INSERT INTO server_copy_v10(position, id, amount, currency, category, day, note, version, seq, deleted)
            SELECT position, uuid_blob(id), amount, currency, category, day, note, version, seq, deleted
            FROM server_copy ORDER BY position;
        DROP TABLE server_copy;
        ALTER TABLE server_copy_v10 RENAME TO server_copy;

        CREATE TABLE outbox_v10 (
            position INTEGER PRIMARY KEY,
            mutation_id INTEGER,                     -- NULL until the entry is about to be pushed
            state TEXT NOT NULL DEFAULT 'unsent' CHECK (state IN ('unsent', 'sent', 'unknown', 'rejected')),
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            expense_id BLOB NOT NULL,                -- the UUID's 16 bytes
            base_version INTEGER NOT NULL,
            amount INTEGER, currency TEXT, category TEXT, date TEXT, note TEXT,  -- changed fields; NULL: unchanged
            reject_reason TEXT, reject_field TEXT, reject_message TEXT,
            if_absent INTEGER NOT NULL DEFAULT 0     -- a materialised occurrence's create (migration 9)
        );
        INSERT INTO outbox_v10(position, mutation_id, state, type, expense_id, base_version, amount, currency, category,
                               date, note, reject_reason, reject_field, reject_message, if_absent)
            SELECT position, mutation_id, state, type, uuid_blob(expense_id), base_version, amount, currency, category,
                   date, note, reject_reason, reject_field, reject_message, if_absent
            FROM outbox ORDER BY position;
        DROP TABLE outbox;
        ALTER TABLE outbox_v10 RENAME TO outbox;
        CREATE INDEX outbox_by_expense ON outbox(expense_id, position);

        CREATE TABLE conflict_v10 (
            expense_id BLOB PRIMARY KEY,             -- the UUID's 16 bytes
            found INTEGER NOT NULL,                  -- order of discovery
            mine_type TEXT NOT NULL, mine_base_version INTEGER NOT NULL,
            mine_amount INTEGER, mine_currency TEXT, mine_category TEXT, mine_date TEXT, mine_note TEXT,
            theirs_amount INTEGER NOT NULL, theirs_currency TEXT NOT NULL, theirs_category TEXT NOT NULL,
            theirs_day INTEGER NOT NULL, theirs_note TEXT NOT NULL, theirs_version INTEGER NOT NULL,
            theirs_seq INTEGER NOT NULL, theirs_deleted INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO conflict_v10 SELECT uuid_blob(expense_id), found, mine_type, mine_base_version, mine_amount,
            mine_currency, mine_category, mine_date, mine_note, theirs_amount, theirs_currency, theirs_category,
            theirs_day, theirs_note, theirs_version, theirs_seq, theirs_deleted FROM conflict;
        DROP TABLE conflict;
        ALTER TABLE conflict_v10 RENAME TO conflict;

        CREATE TABLE data_record_v10 (
            id BLOB PRIMARY KEY,                     -- the UUID's 16 bytes
            kind TEXT NOT NULL,
            fields TEXT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            base_version INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        INSERT INTO data_record_v10 SELECT uuid_blob(id), kind, fields, deleted, base_version FROM data_record;
        DROP TABLE data_record;
        ALTER TABLE data_record_v10 RENAME TO data_record;
        CREATE TABLE data_pending_v10 (
            position INTEGER PRIMARY KEY,
            id BLOB NOT NULL,                        -- the UUID's 16 bytes
            kind TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
            base_version INTEGER NOT NULL,
            fields TEXT,
            mutation_id INTEGER                      -- numbered when first sent (LedgerDataSync); NULL: unsent
        );
        INSERT INTO data_pending_v10 SELECT position, uuid_blob(id), kind, type, base_version, fields, mutation_id
            FROM data_pending ORDER BY position;
        DROP TABLE data_pending;
        ALTER TABLE data_pending_v10 RENAME TO data_pending;
        CREATE TABLE data_conflict_v10 (
            id BLOB PRIMARY KEY,                     -- the UUID's 16 bytes
            kind TEXT NOT NULL,
            mine TEXT,                               -- the fields this machine sent (NULL: a delete)
            theirs TEXT NOT NULL                     -- the record as the daemon had it, as JSON
        ) WITHOUT ROWID;
        INSERT INTO data_conflict_v10 SELECT uuid_blob(id), kind, mine, theirs FROM data_conflict;
        DROP TABLE data_conflict;
        ALTER TABLE data_conflict_v10 RENAME TO data_conflict;

        INSERT INTO meta(key, value) VALUES ('\(StoreMetaKey.bulkLoad.rawValue)', '1') ON CONFLICT(key) DO UPDATE SET value = excluded.value;
        """

    /// The SQL functions the migrations use, defined on a connection before it migrates: `uuid_blob(text)`, the
    /// 16 bytes of a UUID's text (migration 10).
    static func defineFunctions(on connection: SQLiteConnection) throws {
        try connection.defineTextToBlobFunction("uuid_blob", failure: "a stored id is not a UUID") { text in
            UUIDBlob.bytes(utf8: text)
        }
    }
}
