import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// The statements a ``PostgresLedgerStore`` transaction writes its rows with, one per table, sent with the head
/// and `COMMIT` in one round trip (``PostgreSQL/PostgresConnection/pipeline(_:)``). Each writes all its rows
/// through `unnest` of arrays sent in PostgreSQL's binary format (``PostgreSQL/PostgresBinaryArray``): the server
/// copies the values instead of parsing their text.
extension PostgresLedgerStore {
    /// The transaction's writes: records, clients and their outcomes, aggregates, history.
    func pendingWrites() throws -> [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if !pendingRecords.isEmpty {
            // Creates are plain inserts: the server skips the conflict check an upsert makes for every row.
            // A new record still at its first version is written with that version's constant columns in the
            // statement (no array for them); one changed again in the same transaction with all its columns.
            var first: [PendingRecordWrite] = [], later: [PendingRecordWrite] = [], replaced: [StoredRecord] = []
            for write in pendingRecords.values {
                if !write.isNew {
                    replaced.append(write.stored)
                } else if PendingRecordVersions.isCreation(write.stored) {
                    first.append(write)
                } else {
                    later.append(write)
                }
            }
            if !first.isEmpty { statements.append(Self.creationsStatement(first, ledger: number)) }
            if !later.isEmpty {
                statements.append(Self.recordsStatement(later.map(\.stored), ledger: number, replacing: false,
                                                        creations: later.map(\.creation)))
            }
            if !replaced.isEmpty { statements.append(Self.recordsStatement(replaced, ledger: number, replacing: true)) }
        }
        statements += try clientStatements()
        statements += aggregateStatements()
        if !pendingHistory.isEmpty { statements.append(Self.insertHistoryStatement(pendingHistory, ledger: number)) }
        return statements
    }

    /// Writes `records` of `ledger` in one statement, each with its seq, replacing the row of the same id.
    static func upsertRecords(_ records: [StoredRecord], ledger: Int64, connection: PostgresConnection) throws {
        let statement = recordsStatement(records, ledger: ledger, replacing: true)
        try connection.query(statement.sql, statement.parameters)
    }

    /// The statement writing `records` of `ledger`: with `replacing`, an upsert replacing the row of the same id
    /// (its creation, ``RecordCreation``, kept); without, a plain insert (every id must be new to the ledger, or
    /// the statement fails), each row with its creation in `creations`, by position (none: NULL, its creation a
    /// `history` row; no array: no creation columns written).
    static func recordsStatement(_ records: [StoredRecord], ledger: Int64, replacing: Bool,
                                 creations: [RecordCreation?] = []) -> PostgresStatement {
        var columns = PostgresRecordColumns(capacity: records.count)
        for stored in records { columns.append(stored) }
        let replace = replacing ? "\nON CONFLICT (ledger, id) DO UPDATE SET \(RecordColumns.replacingExcluded)" : ""
        guard !replacing, !creations.isEmpty else {
            return PostgresStatement("INSERT INTO records (ledger, \(RecordColumns.list)) SELECT $1, * FROM unnest("
                                     + columns.parameterList(from: 2) + ")" + replace,
                                     [.integer(ledger)] + columns.arrays.map(\.value))
        }
        let first = 2 + columns.arrays.count
        return PostgresStatement("INSERT INTO records (ledger, \(RecordColumns.list), \(RecordCreation.list)) SELECT $1, * FROM unnest("
                                 + columns.parameterList(from: 2) + ", " + creationParameterList(from: first) + ")",
                                 [.integer(ledger)] + columns.arrays.map(\.value) + creationArrays(creations))
    }

    /// The statement inserting new records of `ledger`, each at its first version (``PendingRecordVersions/isCreation(_:)``),
    /// with its creation: the columns every first version shares are constants of the statement
    /// (``RecordColumns/creationConstants``), so only the others are sent, as arrays.
    static func creationsStatement(_ writes: [PendingRecordWrite], ledger: Int64) -> PostgresStatement {
        var columns = PostgresRecordColumns(capacity: writes.count, creations: true)
        for write in writes { columns.append(write.stored) }
        return PostgresStatement(creationsSQL, [.integer(ledger)] + columns.arrays.map(\.value) + creationArrays(writes.map(\.creation)))
    }

    /// ``creationsStatement(_:ledger:creations:)``'s text: the arrays' columns named `u0, u1, …` in order, the
    /// record's columns that are not constants first, then its creation's.
    private static let creationsSQL: String = {
        let arrays = PostgresRecordColumns(capacity: 0, creations: true)
        let names = (0..<(arrays.arrays.count + 4)).map { "u\($0)" }
        return "INSERT INTO records (ledger, \(RecordColumns.list), \(RecordCreation.list)) SELECT $1, "
            + PostgresRecordColumns.creationSelectList("u") + ", " + names.suffix(4).joined(separator: ", ")
            + " FROM unnest(" + arrays.parameterList(from: 2) + ", " + creationParameterList(from: 2 + arrays.arrays.count)
            + ") AS c(" + names.joined(separator: ", ") + ")"
    }()

    /// `unnest`'s arguments for the creation columns (``RecordCreation/list``), from parameter `first`.
    private static func creationParameterList(from first: Int) -> String {
        "$\(first)::bigint[], $\(first + 1)::text[], $\(first + 2)::uuid[], $\(first + 3)::bigint[]"
    }

    /// The records' creations, in order, as the arrays of ``RecordCreation/list`` (NULLs for a record without).
    private static func creationArrays(_ creations: [RecordCreation?]) -> [PostgresValue] {
        var seqs = PostgresBinaryArray(.int8, capacity: creations.count), whos = PostgresBinaryArray(.text, capacity: creations.count)
        var clients = PostgresBinaryArray(.uuid, capacity: creations.count), times = PostgresBinaryArray(.int8, capacity: creations.count)
        for creation in creations {
            if let creation {
                seqs.append(creation.seq)
                if let who = creation.who { whos.append(who) } else { whos.appendNull() }
                clients.append(creation.clientId)
                times.append(creation.time)
            } else {
                seqs.appendNull()
                whos.appendNull()
                clients.appendNull()
                times.appendNull()
            }
        }
        return [seqs.value, whos.value, clients.value, times.value]
    }

    /// The transaction's aggregate changes, day and month, in two statements; rows left with no count and no
    /// amount go (a row with an amount and no count holds parts of expenses of other categories).
    private func aggregateStatements() -> [PostgresStatement] {
        var monthly: [TotalsKey: TotalsDelta] = [:]
        var daily: [(TotalsKey, TotalsDelta)] = []
        for (key, delta) in pendingDeltas where delta.amount != 0 || delta.count != 0 {
            daily.append((key, delta))
            monthly[key.month, default: .init()].amount += delta.amount
            monthly[key.month, default: .init()].count += delta.count
        }
        return apply(daily, table: "daily_totals", column: "day")
            + apply(monthly.filter { $0.value.amount != 0 || $0.value.count != 0 }.map { ($0.key, $0.value) },
                    table: "monthly_totals", column: "month")
    }

    private func apply(_ deltas: [(TotalsKey, TotalsDelta)], table: String,
                       column: String) -> [PostgresStatement] {
        Self.totalsStatements(deltas, table: table, column: column, ledger: number)
    }

    /// The statements adding `deltas` to `table` (`daily_totals` by `day`, `monthly_totals` by `month`) of the
    /// ledger numbered `ledger`, and removing the rows they leave empty.
    static func totalsStatements(_ deltas: [(TotalsKey, TotalsDelta)], table: String, column: String,
                                 ledger number: Int64) -> [PostgresStatement] {
        guard !deltas.isEmpty else { return [] }
        var days = PostgresBinaryArray(.int4, capacity: deltas.count), categories = PostgresBinaryArray(.text, capacity: deltas.count)
        var currencies = PostgresBinaryArray(.text, capacity: deltas.count)
        var amounts = PostgresBinaryArray(.int8, capacity: deltas.count), counts = PostgresBinaryArray(.int8, capacity: deltas.count)
        for (key, delta) in deltas {
            days.append(Int64(key.span))
            categories.append(key.category)
            currencies.append(key.currency.code)
            amounts.append(delta.amount)
            counts.append(delta.count)
        }
        let parameters: [PostgresValue] = [.integer(number), days.value, categories.value, currencies.value, amounts.value, counts.value]
        var statements = [PostgresStatement("""
            INSERT INTO \(table) AS t (ledger, \(column), category, currency, amount, count)
            SELECT $1, * FROM unnest($2::integer[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
            ON CONFLICT (ledger, \(column), category, currency)
            DO UPDATE SET amount = t.amount + excluded.amount, count = t.count + excluded.count
            """, parameters)]
        if deltas.contains(where: { $0.1.count < 0 || $0.1.amount < 0 }) {
            statements.append(PostgresStatement(
                "DELETE FROM \(table) WHERE ledger = $1 AND count = 0 AND amount = 0 AND (\(column), category, currency) IN "
                    + "(SELECT * FROM unnest($2::integer[], $3::text[], $4::text[]))",
                Array(parameters[0..<4])))
        }
        return statements
    }
}

/// A record a ``PostgresLedgerStore`` transaction writes: its row; whether no row of the database had its id when the
/// transaction read it (under the ledger row's lock, so none can appear before it commits), which makes its write a
/// plain `INSERT`; and the creation its row carries (``RecordCreation``: no `history` row for it).
struct PendingRecordWrite {
    var stored: StoredRecord
    let isNew: Bool
    var creation: RecordCreation? = nil
}
