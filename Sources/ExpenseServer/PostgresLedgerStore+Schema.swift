import PostgreSQL

extension PostgresLedgerStore {
    /// The schema every ledger of a database shares, one migration per entry, applied in order with the
    /// `schema_version` table (``PostgreSQL/PostgresConnection/migrate(_:table:)``).
    ///
    /// - Important: Never edit a shipped migration; append a new one. A schema newer than this program is refused.
    ///
    /// Layout: every table carries the ledger as the first column of its key, so all ledgers live in one
    /// database (and a distributed PostgreSQL could shard every table by that column alone): since migration 4
    /// its number (`ledgers.number`) in the tables a push writes or reads, its name in `tokens` and `auth_failures`.
    /// - `ledgers` has one row per ledger: currency, token, identity (ledger id, epoch, epoch cursor) and the
    ///   `head` and `generation` every write transaction locks (`SELECT … FOR UPDATE`) and advances: that row
    ///   lock is what serialises one ledger's writes across daemons, and `generation` tells a daemon whether its
    ///   cached totals are still the database's.
    /// - `records` is keyed by (ledger, id) with a unique (ledger, seq) index for pulls; an edit updates the
    ///   row in place with its new seq.
    /// - `daily_totals` and `monthly_totals` hold the sum and count of live records per (day or month,
    ///   category, currency), updated in the same transaction as the records, so `summary` is O(groups).
    ///   Categories are `COLLATE "C"`: compared by their bytes (``ExpenseCore/ExactText``), whatever the
    ///   database's default collation.
    /// - `clients` and `outcomes` hold each client's last consumed mutationId and the kept outcomes of its
    ///   latest mutations (Protocol.md §7.6), in the same transaction as the effects; migration 4 replaces
    ///   `outcomes` by `outcome_runs`, one row per run of a client's outcomes of consecutive mutationIds, keyed
    ///   (ledger, client, first mutationId). Since migration 11 a client's newest outcomes are its open run, held
    ///   by its `clients` row (`open_first…open_last`, `open_outcomes` packed the same way, NULL: none) until it
    ///   holds a few dozen and is inserted into `outcome_runs` (``OpenOutcomeRun``), as in the SQLite store.
    /// - `auth_failures` counts failed `hello`s per (address, ledger) for every daemon on the database
    ///   (``PostgresLoginThrottle``; migration 3 adds each key's next turn, `next_slot`).
    ///
    /// Migration 1 brings the store to the SQLite store's migrations 3–5:
    /// - `tokens` holds each ledger's named tokens (name, role, SHA-256 as `bytea`, never the token, creation
    ///   and last use in Unix seconds); the single token migration 0 kept in the clear in `ledgers.token`
    ///   becomes the owner token `default` (its `sha256` computed by PostgreSQL) and the column goes.
    ///   `ledgers.tokens_generation` moves on with every token added or removed: what `PRAGMA data_version` is
    ///   to the SQLite store (``tokensMayHaveChanged()``), a row every daemon of the database reads.
    /// - `history` holds one entry per applied change (Protocol.md §5.8), keyed (ledger, seq), with an index
    ///   on (ledger, id, seq) for one record's history (a hash index on id since migration 4); `ledgers.history_start_seq`/`history_start_time` say
    ///   when it began (changes before it count as made then) and `ledgers.horizon` is the purge horizon.
    /// - `data_records` holds budgets, recurring rules and settings (Protocol.md §10) in the same seq sequence
    ///   as `records` (the ledger row's `head` numbers both), fields and field versions as JSON text.
    static let migrations: [PostgresMigration] = [
        """
        CREATE TABLE ledgers (
            name text PRIMARY KEY,
            currency text NOT NULL,
            token text,
            ledger_id uuid NOT NULL,
            epoch uuid NOT NULL,
            epoch_cursor bigint NOT NULL DEFAULT 0,
            head bigint NOT NULL DEFAULT 0,
            generation bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE records (
            ledger text NOT NULL,
            id uuid NOT NULL,
            seq bigint NOT NULL,
            version bigint NOT NULL,
            deleted boolean NOT NULL,
            amount bigint NOT NULL,
            currency text NOT NULL,
            category text COLLATE "C" NOT NULL,
            day integer NOT NULL,
            note text NOT NULL,
            money_version bigint NOT NULL,
            category_version bigint NOT NULL,
            date_version bigint NOT NULL,
            note_version bigint NOT NULL,
            PRIMARY KEY (ledger, id)
        );
        CREATE UNIQUE INDEX records_by_seq ON records (ledger, seq);
        CREATE TABLE clients (
            ledger text NOT NULL, id uuid NOT NULL, last_mutation_id bigint NOT NULL,
            PRIMARY KEY (ledger, id)
        );
        CREATE TABLE outcomes (
            ledger text NOT NULL, client uuid NOT NULL, mutation_id bigint NOT NULL, status smallint NOT NULL,
            version bigint, seq bigint, record uuid, reason text, field text, message text,
            PRIMARY KEY (ledger, client, mutation_id)
        );
        CREATE TABLE daily_totals (
            ledger text NOT NULL, day integer NOT NULL, category text COLLATE "C" NOT NULL, currency text NOT NULL,
            amount bigint NOT NULL, count bigint NOT NULL,
            PRIMARY KEY (ledger, day, category, currency)
        );
        CREATE TABLE monthly_totals (
            ledger text NOT NULL, month integer NOT NULL, category text COLLATE "C" NOT NULL, currency text NOT NULL,
            amount bigint NOT NULL, count bigint NOT NULL,
            PRIMARY KEY (ledger, month, category, currency)
        );
        CREATE TABLE auth_failures (
            address text NOT NULL, ledger text NOT NULL, failures integer NOT NULL, last_failure timestamptz NOT NULL,
            PRIMARY KEY (address, ledger)
        );
        """,
        """
        CREATE TABLE tokens (
            ledger text NOT NULL, name text NOT NULL, role text NOT NULL, hash bytea NOT NULL,
            created bigint NOT NULL, last_used bigint,
            PRIMARY KEY (ledger, name)
        );
        CREATE TABLE history (
            ledger text NOT NULL, seq bigint NOT NULL, id uuid NOT NULL, version bigint NOT NULL,
            action smallint NOT NULL, changes text NOT NULL, who text, client uuid NOT NULL, time bigint NOT NULL,
            PRIMARY KEY (ledger, seq)
        );
        CREATE INDEX history_by_record ON history (ledger, id, seq);
        CREATE TABLE data_records (
            ledger text NOT NULL, id uuid NOT NULL, seq bigint NOT NULL, kind text NOT NULL, version bigint NOT NULL,
            deleted boolean NOT NULL, fields text NOT NULL, field_versions text NOT NULL,
            PRIMARY KEY (ledger, id)
        );
        CREATE UNIQUE INDEX data_records_by_seq ON data_records (ledger, seq);
        ALTER TABLE ledgers
            ADD COLUMN horizon bigint NOT NULL DEFAULT 0,
            ADD COLUMN history_start_seq bigint NOT NULL DEFAULT 0,
            ADD COLUMN history_start_time bigint NOT NULL DEFAULT 0,
            ADD COLUMN tokens_generation bigint NOT NULL DEFAULT 0;
        UPDATE ledgers SET history_start_seq = head, history_start_time = extract(epoch FROM now())::bigint;
        INSERT INTO tokens (ledger, name, role, hash, created)
            SELECT name, 'default', 'owner', sha256(convert_to(token, 'UTF8')), extract(epoch FROM now())::bigint
            FROM ledgers WHERE token IS NOT NULL;
        ALTER TABLE ledgers DROP COLUMN token;
        """,
        // 2: history entries of budgets, rules and settings (Protocol.md §5.8), as the SQLite store's migration 6:
        // the record's kind as an index of ``SQLiteLedgerStore/historyKinds`` (0: an expense, every older row).
        "ALTER TABLE history ADD COLUMN kind smallint NOT NULL DEFAULT 0;",
        // 3: the login throttle's count shared by every daemon (``PostgresLoginThrottle``): the key's next turn,
        // as ``AuthThrottle`` keeps it in memory (NULL: no turn handed out yet), and an index by last failure
        // so forgetting the keys of every address after 10 minutes is cheap.
        """
        ALTER TABLE auth_failures ADD COLUMN next_slot timestamptz;
        CREATE INDEX auth_failures_by_time ON auth_failures (last_failure);
        """,
        // 4: less work per push on PostgreSQL's side, whose CPU, not the daemon's, bounds 500-mutation pushes:
        // - every table a push writes or reads is keyed by the ledger's number (`ledgers.number`) instead of its
        //   name: an integer compared in every index probe, not a text (and index columns after it at fixed
        //   offsets); `tokens` and `auth_failures` (read at hello, keyed by a name a client gave) keep the name;
        // - kept outcomes as runs, one row per client per group commit (`PostgresLedgerStore+Outcomes.swift`)
        //   instead of one per outcome; the Swift step packs the old rows with the store's codec;
        // - the totals rows, updated in place by every group commit that touches their key, leave half of each page
        //   free, so PostgreSQL writes the new version beside the old one (a HOT update: no index entry to insert);
        // - one record's history is found by a hash index on its id (cheaper to insert into than a B-tree on
        //   (ledger, id, seq)); the rows found are filtered by ledger and sorted by seq, a few per record.
        // Each table is copied into its new shape and its keys built after the copy.
        PostgresMigration("""
            ALTER TABLE ledgers ADD COLUMN number integer GENERATED ALWAYS AS IDENTITY;
            ALTER TABLE ledgers ADD CONSTRAINT ledgers_number_key UNIQUE (number);

            ALTER TABLE records RENAME TO records_by_name;
            ALTER INDEX records_pkey RENAME TO records_by_name_pkey;
            ALTER INDEX records_by_seq RENAME TO records_by_name_seq;
            CREATE TABLE records (
                ledger integer NOT NULL,
                id uuid NOT NULL,
                seq bigint NOT NULL,
                version bigint NOT NULL,
                deleted boolean NOT NULL,
                amount bigint NOT NULL,
                currency text NOT NULL,
                category text COLLATE "C" NOT NULL,
                day integer NOT NULL,
                note text NOT NULL,
                money_version bigint NOT NULL,
                category_version bigint NOT NULL,
                date_version bigint NOT NULL,
                note_version bigint NOT NULL
            );
            INSERT INTO records SELECT l.number, r.id, r.seq, r.version, r.deleted, r.amount, r.currency, r.category, r.day,
                r.note, r.money_version, r.category_version, r.date_version, r.note_version
                FROM records_by_name r JOIN ledgers l ON l.name = r.ledger;
            DROP TABLE records_by_name;
            ALTER TABLE records ADD PRIMARY KEY (ledger, id);
            CREATE UNIQUE INDEX records_by_seq ON records (ledger, seq);

            ALTER TABLE clients RENAME TO clients_by_name;
            ALTER INDEX clients_pkey RENAME TO clients_by_name_pkey;
            CREATE TABLE clients (ledger integer NOT NULL, id uuid NOT NULL, last_mutation_id bigint NOT NULL);
            INSERT INTO clients SELECT l.number, c.id, c.last_mutation_id FROM clients_by_name c JOIN ledgers l ON l.name = c.ledger;
            DROP TABLE clients_by_name;
            ALTER TABLE clients ADD PRIMARY KEY (ledger, id);

            ALTER TABLE daily_totals RENAME TO daily_totals_by_name;
            ALTER INDEX daily_totals_pkey RENAME TO daily_totals_by_name_pkey;
            CREATE TABLE daily_totals (
                ledger integer NOT NULL, day integer NOT NULL, category text COLLATE "C" NOT NULL, currency text NOT NULL,
                amount bigint NOT NULL, count bigint NOT NULL
            ) WITH (fillfactor = 50);
            INSERT INTO daily_totals SELECT l.number, t.day, t.category, t.currency, t.amount, t.count
                FROM daily_totals_by_name t JOIN ledgers l ON l.name = t.ledger;
            DROP TABLE daily_totals_by_name;
            ALTER TABLE daily_totals ADD PRIMARY KEY (ledger, day, category, currency);

            ALTER TABLE monthly_totals RENAME TO monthly_totals_by_name;
            ALTER INDEX monthly_totals_pkey RENAME TO monthly_totals_by_name_pkey;
            CREATE TABLE monthly_totals (
                ledger integer NOT NULL, month integer NOT NULL, category text COLLATE "C" NOT NULL, currency text NOT NULL,
                amount bigint NOT NULL, count bigint NOT NULL
            ) WITH (fillfactor = 50);
            INSERT INTO monthly_totals SELECT l.number, t.month, t.category, t.currency, t.amount, t.count
                FROM monthly_totals_by_name t JOIN ledgers l ON l.name = t.ledger;
            DROP TABLE monthly_totals_by_name;
            ALTER TABLE monthly_totals ADD PRIMARY KEY (ledger, month, category, currency);

            ALTER TABLE history RENAME TO history_by_name;
            ALTER INDEX history_pkey RENAME TO history_by_name_pkey;
            ALTER INDEX history_by_record RENAME TO history_by_name_record;
            CREATE TABLE history (
                ledger integer NOT NULL, seq bigint NOT NULL, id uuid NOT NULL, version bigint NOT NULL,
                action smallint NOT NULL, changes text NOT NULL, who text, client uuid NOT NULL, time bigint NOT NULL,
                kind smallint NOT NULL DEFAULT 0
            );
            INSERT INTO history SELECT l.number, h.seq, h.id, h.version, h.action, h.changes, h.who, h.client, h.time, h.kind
                FROM history_by_name h JOIN ledgers l ON l.name = h.ledger;
            DROP TABLE history_by_name;
            ALTER TABLE history ADD PRIMARY KEY (ledger, seq);
            CREATE INDEX history_by_record ON history USING hash (id);

            ALTER TABLE data_records RENAME TO data_records_by_name;
            ALTER INDEX data_records_pkey RENAME TO data_records_by_name_pkey;
            ALTER INDEX data_records_by_seq RENAME TO data_records_by_name_seq;
            CREATE TABLE data_records (
                ledger integer NOT NULL, id uuid NOT NULL, seq bigint NOT NULL, kind text NOT NULL, version bigint NOT NULL,
                deleted boolean NOT NULL, fields text NOT NULL, field_versions text NOT NULL
            );
            INSERT INTO data_records SELECT l.number, d.id, d.seq, d.kind, d.version, d.deleted, d.fields, d.field_versions
                FROM data_records_by_name d JOIN ledgers l ON l.name = d.ledger;
            DROP TABLE data_records_by_name;
            ALTER TABLE data_records ADD PRIMARY KEY (ledger, id);
            CREATE UNIQUE INDEX data_records_by_seq ON data_records (ledger, seq);

            CREATE TABLE outcome_runs (
                ledger integer NOT NULL, client uuid NOT NULL, first_mutation_id bigint NOT NULL,
                last_mutation_id bigint NOT NULL, outcomes bytea NOT NULL,
                PRIMARY KEY (ledger, client, first_mutation_id)
            );
            """, step: convertOutcomeRows),
        // 5: shared expenses: who paid (a member's id) and the split (its canonical text), empty for the
        // expenses before them; the payer's version (the split is money's).
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN paid_by text NOT NULL DEFAULT '';
            ALTER TABLE records ADD COLUMN split text NOT NULL DEFAULT '';
            ALTER TABLE records ADD COLUMN paidBy_version bigint NOT NULL DEFAULT 1;
            """),
        // 6: the amount charged in the ledger's currency (`--paid`, minor units), 0 for none and for the expenses
        // before it; money's, so no version of its own.
        PostgresMigration("ALTER TABLE records ADD COLUMN charged bigint NOT NULL DEFAULT 0;"),
        // 7: tags (their text form: sorted, joined by commas), empty for none and for the expenses before them, and
        // their version (a conflict group of their own).
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN tags text NOT NULL DEFAULT '';
            ALTER TABLE records ADD COLUMN tags_version bigint NOT NULL DEFAULT 1;
            """),
        // 8: the parts of the amount in other categories (`--part`, their canonical text), empty for none and for
        // the expenses before them; money's, so no version of their own.
        PostgresMigration("ALTER TABLE records ADD COLUMN parts text NOT NULL DEFAULT '';"),
        // 9: the row's original text as an import read it, empty for none and for the expenses before it, and its
        // version (a conflict group of its own).
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN source text NOT NULL DEFAULT '';
            ALTER TABLE records ADD COLUMN source_version bigint NOT NULL DEFAULT 1;
            """),
        // 10: an expense's creation is implied by its record's row, not a `history` row, as in the SQLite store
        // (``SQLiteLedgerStore/creationColumnsMigration``, ``RecordCreation``): the create entry's seq, who, client
        // and time. The row is updated in place by every later version, which keeps the four; `created_seq` is
        // always the creation's own seq here. NULL in the rows written before (no row rewritten): their creations
        // are `history` rows. `records_created` lists the creations in seq order (a create appends at its end).
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN created_seq bigint, ADD COLUMN created_by text, ADD COLUMN created_client uuid,
                ADD COLUMN created_time bigint;
            CREATE INDEX records_created ON records (ledger, created_seq) WHERE created_seq IS NOT NULL;
            """),
        // 11: a client's newest outcomes in its `clients` row, its open run (`open_outcomes` packed as a run's,
        // NULL: none), inserted into `outcome_runs` once it holds a few dozen, as the SQLite store's migration 15:
        // a single push inserted a run row of its own (and its index entry) beside the client's row, which it
        // rewrites anyway (`PostgresLedgerStore+Outcomes.swift`). Constant defaults rewrite no row; the runs
        // already in `outcome_runs` stay there and answer as before.
        PostgresMigration("""
            ALTER TABLE clients ADD COLUMN open_first bigint NOT NULL DEFAULT 0, ADD COLUMN open_last bigint NOT NULL DEFAULT 0,
                ADD COLUMN open_outcomes bytea;
            """),
        // 12: the six optional fields in one text, `extras` (``ExpenseCore/ExpenseExtras``: empty for an expense that
        // uses none), as the SQLite store's migration 16: a push sent and the backend wrote six more values per
        // row, and a new optional field needed a migration of every store. Only the rows that use a field are
        // rewritten (the default is constant); the dropped columns go from the catalogue at once and from a row's
        // storage when it is next written.
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN extras text NOT NULL DEFAULT '';
            UPDATE records SET extras = substr(
                    CASE WHEN paid_by <> '' THEN chr(31) || 'paidBy=' || paid_by ELSE '' END
                    || CASE WHEN split <> '' THEN chr(31) || 'split=' || split ELSE '' END
                    || CASE WHEN charged <> 0 THEN chr(31) || 'charged=' || charged ELSE '' END
                    || CASE WHEN tags <> '' THEN chr(31) || 'tags=' || tags ELSE '' END
                    || CASE WHEN parts <> '' THEN chr(31) || 'parts=' || parts ELSE '' END
                    || CASE WHEN source <> '' THEN chr(31) || 'source=' || source ELSE '' END, 2)
                WHERE paid_by <> '' OR split <> '' OR charged <> 0 OR tags <> '' OR parts <> '' OR source <> '';
            ALTER TABLE records DROP COLUMN paid_by, DROP COLUMN split, DROP COLUMN charged, DROP COLUMN tags,
                DROP COLUMN parts, DROP COLUMN source;
            """),
        // 13: the seven field versions in one text, `field_versions` (``FieldVersions/columnText``: empty for a record
        // whose fields are all at version 1), as the SQLite store's migration 17: a push of creations sent seven
        // arrays of ones, and a new conflict group needed a migration of every store. Only the rows with a version
        // above 1 are rewritten (the default is constant).
        PostgresMigration("""
            ALTER TABLE records ADD COLUMN field_versions text NOT NULL DEFAULT '';
            UPDATE records SET field_versions = \(FieldVersions.textOfSeparateColumns { $0 + "::text" })
                WHERE \(FieldVersions.separateColumns.map { $0 + " <> 1" }.joined(separator: " OR "));
            ALTER TABLE records \(FieldVersions.separateColumns.map { "DROP COLUMN " + $0 }.joined(separator: ", "));
            """),
    ]
}
