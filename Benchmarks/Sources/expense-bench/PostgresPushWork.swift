import Foundation
import PostgreSQL

/// PostgreSQL doing a push's work, the equal-work peer of the push figures: the rows our PostgreSQL store writes
/// for a push of new expenses (`PostgresLedgerStore+Writes.swift`), into tables of the same shapes and indexes
/// (`PostgresLedgerStore+Schema.swift` after all its migrations), in a database of their own.
///
/// One transaction per push, in ONE round trip (libpq's pipeline mode; our store takes two, its reads answered
/// before it writes): `BEGIN`; the ledger row's lock (`SELECT … FOR UPDATE`, as our store serialises a ledger's
/// commits) and the check of its totals' generation; the read-ahead of the clients' last mutationIds and of the
/// versions of the records and data records of those ids (the version check: every id is fresh, so none is found,
/// which the primary key would otherwise refuse); the records, each with its creation (author, client, time: no
/// `history` row for a create since the store's migration 10) and its optional fields as one empty text (primary
/// key, the unique seq index and the creations' index); the client's last mutationId (an upsert, its open run empty);
/// its outcome run (one row, a byte per outcome) and the delete of its runs past the kept window; the day's and the
/// month's totals of every (category, currency) the push touches (upserts adding sum and count, tables at fill
/// factor 50); the head; `COMMIT`. Each connection has a ledger of its
/// own, so PostgreSQL may commit them side by side: the most it can do with this work, not what one ledger allows.
enum PostgresPushWork {
    static let database = "push_work"
    /// The outcome window of our stores (``ConsumedOutcome``'s default retention): runs wholly older are deleted.
    static let outcomeRetention: Int64 = 10_000

    /// The connection string of the push-work database on the cluster of `conninfo` (which names `dbname=postgres`).
    static func conninfo(_ clusterConninfo: String) -> String {
        clusterConninfo.replacingOccurrences(of: "dbname=postgres", with: "dbname=\(database)")
    }

    /// Creates (again) the database and its tables, with one ledger row per connection up to `ledgers`.
    static func prepare(conninfo clusterConninfo: String, ledgers: Int) throws(BenchError) {
        do {
            let cluster = try PostgresConnection(clusterConninfo)
            // FORCE: the backends of the previous run's connections may still be on their way out.
            try cluster.execute("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            try cluster.execute("CREATE DATABASE \(database)")
            let connection = try PostgresConnection(conninfo(clusterConninfo))
            try connection.execute("""
                CREATE TABLE ledgers (number integer PRIMARY KEY, head bigint NOT NULL, generation bigint NOT NULL);
                INSERT INTO ledgers SELECT n, 0, 0 FROM generate_series(1, \(ledgers)) AS n;
                CREATE TABLE records (
                    ledger integer NOT NULL, id uuid NOT NULL, seq bigint NOT NULL, version bigint NOT NULL,
                    deleted boolean NOT NULL, amount bigint NOT NULL, currency text NOT NULL, category text COLLATE "C" NOT NULL,
                    day integer NOT NULL, note text NOT NULL, created_seq bigint, created_by text, created_client uuid,
                    created_time bigint, extras text NOT NULL DEFAULT '', field_versions text NOT NULL DEFAULT '',
                    PRIMARY KEY (ledger, id));
                CREATE UNIQUE INDEX records_by_seq ON records (ledger, seq);
                CREATE INDEX records_created ON records (ledger, created_seq) WHERE created_seq IS NOT NULL;
                CREATE TABLE clients (ledger integer NOT NULL, id uuid NOT NULL, last_mutation_id bigint NOT NULL,
                    open_first bigint NOT NULL DEFAULT 0, open_last bigint NOT NULL DEFAULT 0, open_outcomes bytea,
                    PRIMARY KEY (ledger, id));
                CREATE TABLE outcome_runs (ledger integer NOT NULL, client uuid NOT NULL, first_mutation_id bigint NOT NULL,
                    last_mutation_id bigint NOT NULL, outcomes bytea NOT NULL, PRIMARY KEY (ledger, client, first_mutation_id));
                CREATE TABLE daily_totals (ledger integer NOT NULL, day integer NOT NULL, category text COLLATE "C" NOT NULL,
                    currency text NOT NULL, amount bigint NOT NULL, count bigint NOT NULL,
                    PRIMARY KEY (ledger, day, category, currency)) WITH (fillfactor = 50);
                CREATE TABLE monthly_totals (ledger integer NOT NULL, month integer NOT NULL, category text COLLATE "C" NOT NULL,
                    currency text NOT NULL, amount bigint NOT NULL, count bigint NOT NULL,
                    PRIMARY KEY (ledger, month, category, currency)) WITH (fillfactor = 50);
                CREATE TABLE history (ledger integer NOT NULL, seq bigint NOT NULL, id uuid NOT NULL, version bigint NOT NULL,
                    action smallint NOT NULL, changes text NOT NULL, who text, client uuid NOT NULL, time bigint NOT NULL,
                    kind smallint NOT NULL DEFAULT 0, PRIMARY KEY (ledger, seq));
                CREATE INDEX history_by_record ON history USING hash (id);
                CREATE TABLE data_records (ledger integer NOT NULL, id uuid NOT NULL, seq bigint NOT NULL, kind text NOT NULL,
                    version bigint NOT NULL, deleted boolean NOT NULL, fields text NOT NULL, field_versions text NOT NULL,
                    PRIMARY KEY (ledger, id));
                CREATE UNIQUE INDEX data_records_by_seq ON data_records (ledger, seq);
                """)
        } catch {
            throw .other("PostgreSQL (push work): \(error)")
        }
    }

    /// The pipeline of one push of `rows` new expenses by the client of connection `index` into its ledger;
    /// `seq` is the ledger's head (and the client's last mutationId: one client per ledger), moved on. Every push of
    /// a ledger has `rows` mutations (its generation is its head / `rows`), from a freshly prepared database.
    static func transaction(index: Int, rows: Int, seq: inout Int64) -> [PostgresStatement] {
        let ledger = PostgresValue.integer(Int64(index + 1))
        let client = UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: index >> 8),
                                 UInt8(truncatingIfNeeded: index)))
        let clientText = PostgresValue.text(client.uuidString.lowercased())
        let first = seq + 1
        var ids = PostgresBinaryArray(.uuid, capacity: rows), seqs = PostgresBinaryArray(.int8, capacity: rows)
        var amounts = PostgresBinaryArray(.int8, capacity: rows), categories = PostgresBinaryArray(.text, capacity: rows)
        var days = PostgresBinaryArray(.int4, capacity: rows)
        var daily: [TotalsCell: (amount: Int64, count: Int64)] = [:], monthly: [TotalsCell: (amount: Int64, count: Int64)] = [:]
        var generator = MutationGenerator(seed: UInt64(index) &* 1_000_003 &+ UInt64(bitPattern: first))
        for _ in 0..<rows {
            seq += 1
            let create = generator.nextCreate()
            ids.append(UUID())
            seqs.append(seq)
            amounts.append(Int64(create.amount))
            categories.append(create.category)
            days.append(Int64(create.day))
            let day = TotalsCell(span: create.day, category: create.category)
            let month = TotalsCell(span: create.month, category: create.category)
            daily[day, default: (0, 0)].amount += Int64(create.amount)
            daily[day, default: (0, 0)].count += 1
            monthly[month, default: (0, 0)].amount += Int64(create.amount)
            monthly[month, default: (0, 0)].count += 1
        }
        let statements: [PostgresStatement] = [
            PostgresStatement("BEGIN"),
            PostgresStatement("SELECT head, generation FROM ledgers WHERE number = $1 FOR UPDATE", [ledger]),
            // Our store reads the totals only when another daemon committed since (never here), but asks every time.
            PostgresStatement("""
                SELECT currency, sum(amount)::bigint FROM monthly_totals
                WHERE ledger = $1 AND (SELECT generation FROM ledgers WHERE number = $1) IS DISTINCT FROM $2::bigint
                GROUP BY currency
                """, [ledger, .integer((first - 1) / Int64(rows))]),
            PostgresStatement("SELECT id, last_mutation_id FROM clients WHERE ledger = $1 AND id = ANY(ARRAY[$2::uuid])",
                              [ledger, clientText]),
            PostgresStatement("SELECT id, version FROM records WHERE ledger = $1 AND id = ANY($2::uuid[])", [ledger, ids.value]),
            PostgresStatement("SELECT id, version FROM data_records WHERE ledger = $1 AND id = ANY($2::uuid[])", [ledger, ids.value]),
            PostgresStatement("""
                INSERT INTO records (ledger, id, seq, version, deleted, amount, currency, category, day, note, extras,
                    field_versions, created_seq, created_by, created_client, created_time)
                SELECT $1, id, seq, 1, false, amount, 'USD', category, day, 'bench', '', '',
                    seq, 'default', $7::uuid, $8
                FROM unnest($2::uuid[], $3::bigint[], $4::bigint[], $5::text[], $6::integer[]) AS r(id, seq, amount, category, day)
                """, [ledger, ids.value, seqs.value, amounts.value, categories.value, days.value, clientText,
                      .integer(Int64(Date().timeIntervalSince1970))]),
            PostgresStatement("""
                INSERT INTO clients (ledger, id, last_mutation_id, open_first, open_last, open_outcomes) VALUES ($1, $2, $3, 0, 0, NULL)
                ON CONFLICT (ledger, id) DO UPDATE SET last_mutation_id = excluded.last_mutation_id, open_first = excluded.open_first,
                    open_last = excluded.open_last, open_outcomes = excluded.open_outcomes
                """, [ledger, clientText, .integer(seq)]),
            PostgresStatement("INSERT INTO outcome_runs (ledger, client, first_mutation_id, last_mutation_id, outcomes) VALUES ($1, $2, $3, $4, $5)",
                              [ledger, clientText, .integer(first), .integer(seq), .binary(Array(repeating: 0, count: rows), type: 17)]),
        ] + (seq > outcomeRetention ? [PostgresStatement("""
                DELETE FROM outcome_runs WHERE ledger = $1 AND client = $2 AND first_mutation_id <= $3 AND last_mutation_id <= $3
                """, [ledger, clientText, .integer(seq - outcomeRetention)])] : [])
            + [totals(daily, table: "daily_totals", column: "day", ledger: ledger),
               totals(monthly, table: "monthly_totals", column: "month", ledger: ledger),
               PostgresStatement("UPDATE ledgers SET head = $2, generation = generation + 1 WHERE number = $1 RETURNING generation",
                                 [ledger, .integer(seq)]),
               PostgresStatement("COMMIT")]
        return statements
    }

    /// A (day or month, category) cell of the totals; the currency is always USD here.
    private struct TotalsCell: Hashable {
        var span: Int
        var category: String
    }

    /// The upsert adding `cells` to `table`, as our store's (`PostgresLedgerStore.totalsStatements`).
    private static func totals(_ cells: [TotalsCell: (amount: Int64, count: Int64)], table: String, column: String,
                               ledger: PostgresValue) -> PostgresStatement {
        var spans = PostgresBinaryArray(.int4, capacity: cells.count), categories = PostgresBinaryArray(.text, capacity: cells.count)
        var currencies = PostgresBinaryArray(.text, capacity: cells.count)
        var amounts = PostgresBinaryArray(.int8, capacity: cells.count), counts = PostgresBinaryArray(.int8, capacity: cells.count)
        for (cell, delta) in cells {
            spans.append(Int64(cell.span))
            categories.append(cell.category)
            currencies.append("USD")
            amounts.append(delta.amount)
            counts.append(delta.count)
        }
        return PostgresStatement("""
            INSERT INTO \(table) AS t (ledger, \(column), category, currency, amount, count)
            SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
            ON CONFLICT (ledger, \(column), category, currency)
            DO UPDATE SET amount = t.amount + excluded.amount, count = t.count + excluded.count
            """, [ledger, spans.value, categories.value, currencies.value, amounts.value, counts.value])
    }
}
