import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import PostgreSQL

/// The PostgreSQL store's side of `expensed migrate` (``LedgerSnapshot``).
///
/// A ledger is read in one `REPEATABLE READ READ ONLY` transaction: one consistent state even while daemons
/// keep serving it (what they commit afterwards is not in the copy). It is written in one transaction that
/// first inserts the ledger's row (a name already there refuses the whole copy), then every table in one
/// statement each, the aggregates recomputed from the live records.
extension PostgresLedgerStore {
    /// Everything the ledger `name` holds, read in one snapshot of the database.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, or a storage error.
    /// - Parameter outcomeRetention: the window of kept outcomes the copy holds (Protocol.md §7.6).
    package static func snapshot(ledger name: String, connection: PostgresConnection,
                                 outcomeRetention: Int64 = ConsumedOutcome.defaultRetention) throws -> LedgerSnapshot {
        try storage {
            try connection.transaction {
                try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                guard let row = try connection.query("""
                    SELECT currency, ledger_id, epoch, epoch_cursor, head, horizon, history_start_seq, history_start_time, number
                    FROM ledgers WHERE name = $1
                    """, [.text(name)]).first else { throw LedgerError.unknownLedger(name) }
                let number = row.int64(8)
                let ledger: [PostgresValue] = [.integer(number)]
                guard let currency = Currency(code: row.text(0)), let ledgerId = UUIDText.parse(row.text(1)),
                      let epoch = UUIDText.parse(row.text(2)) else {
                    throw LedgerError.storageFailed("the ledgers row of '\(name)' has no valid currency or identity")
                }
                let records = try connection.query("SELECT \(RecordColumns.list) FROM records WHERE ledger = $1 ORDER BY seq",
                                                   ledger).all.map { try StoredRecord(row: $0) }
                let data = try connection.query("SELECT \(dataColumns) FROM data_records WHERE ledger = $1 ORDER BY seq", ledger)
                    .all.map(decodeData)
                // The `history` rows and the creations records imply (migration 10), merged in seq order.
                let history = try (connection.query("""
                    SELECT seq, id, version, action, changes, who, client, time, kind FROM history WHERE ledger = $1 ORDER BY seq
                    """, ledger).all.map(decodeHistory)
                    + createEntries(ledger: number, since: row.int64(5), sinceTime: 0, id: nil, limit: Int(Int64.max), connection: connection))
                    .sorted { $0.seq < $1.seq }
                var clients: [UUID: Int64] = [:]
                for row in try connection.query("SELECT id, last_mutation_id FROM clients WHERE ledger = $1", ledger).all {
                    guard let id = UUIDText.parse(row.text(0)) else { throw LedgerError.storageFailed("a client id does not parse") }
                    clients[id] = row.int64(1)
                }
                let outcomes = try keptOutcomes(ledger: number, clients: clients, retention: outcomeRetention, connection: connection)
                var totals: [Currency: Int64] = [:]
                for row in try connection.query("""
                    SELECT currency, sum(amount)::bigint FROM monthly_totals WHERE ledger = $1 GROUP BY currency
                    """, ledger).all {
                    if let currency = Currency(code: row.text(0)) { totals[currency] = row.int64(1) }
                }
                var snapshot = LedgerSnapshot(
                    name: name, currency: currency, identity: LedgerIdentity(ledgerId: ledgerId, epoch: epoch, epochCursor: row.int64(3)),
                    head: row.int64(4), horizon: row.int64(5), historyStartSeq: row.int64(6), historyStartTime: row.int64(7),
                    records: records, dataRecords: data, history: history, clients: clients, outcomes: outcomes,
                    tokens: try tokens(ledger: name, connection: connection), totals: totals)
                snapshot.sort()
                return snapshot
            }
        }
    }

    /// Creates the ledger `snapshot.name` holding exactly `snapshot`, in one transaction.
    /// - Throws: ``LedgerError/ledgerExists(_:)``, ``LedgerError/invalidLedgerName(_:)``, or a storage error.
    package static func install(_ snapshot: LedgerSnapshot, connection: PostgresConnection) throws {
        guard LedgerDirectory.isValid(name: snapshot.name) else { throw LedgerError.invalidLedgerName(snapshot.name) }
        try storage {
            try connection.transaction {
                let identity = snapshot.identity
                let inserted = try connection.query("""
                    INSERT INTO ledgers (name, currency, ledger_id, epoch, epoch_cursor, head, horizon, history_start_seq,
                                         history_start_time)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (name) DO NOTHING RETURNING number
                    """, [.text(snapshot.name), .text(snapshot.currency.code), .text(UUIDText.lowercased(identity.ledgerId)),
                          .text(UUIDText.lowercased(identity.epoch)), .integer(identity.epochCursor), .integer(snapshot.head),
                          .integer(snapshot.horizon), .integer(snapshot.historyStartSeq),
                          .integer(snapshot.historyStartTime)]).first
                guard let number = inserted?.int64(0) else { throw LedgerError.ledgerExists(snapshot.name) }
                let ledger = PostgresValue.integer(number)
                if !snapshot.records.isEmpty { try upsertRecords(snapshot.records, ledger: number, connection: connection) }
                for stored in snapshot.dataRecords {
                    try connection.query("""
                        INSERT INTO data_records (ledger, id, seq, kind, version, deleted, fields, field_versions)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                        """, [ledger, .text(UUIDText.lowercased(stored.record.id)), .integer(stored.seq),
                              .text(stored.record.kind.rawValue), .integer(stored.version), .bool(stored.deleted),
                              .text(stored.fieldsText), .text(stored.fieldVersionsText)])
                }
                if !snapshot.history.isEmpty { try insertHistory(snapshot.history, ledger: number, connection: connection) }
                if !snapshot.clients.isEmpty {
                    try connection.query("""
                        INSERT INTO clients (ledger, id, last_mutation_id) SELECT $1, * FROM unnest($2::uuid[], $3::bigint[])
                        """, [ledger, .array(snapshot.clients.keys.map { .text(UUIDText.lowercased($0)) }),
                              .array(snapshot.clients.values.map { .integer($0) })])
                }
                try insertOutcomes(snapshot.outcomes, ledger: number, connection: connection)
                for token in snapshot.tokens { try insertToken(token, ledger: snapshot.name, connection: connection) }
                for (table, column, key) in [("daily_totals", "day", "day"), ("monthly_totals", "month", "day / 100")] {
                    try connection.query("""
                        INSERT INTO \(table) (ledger, \(column), category, currency, amount, count)
                        SELECT ledger, \(key), category, currency, sum(amount)::bigint, count(*) FROM records
                        WHERE ledger = $1 AND NOT deleted GROUP BY ledger, \(key), category, currency
                        """, [ledger])
                }
                // The GROUP BY counted each expense whole in its own category; its parts move to theirs.
                var daily: [TotalsKey: TotalsDelta] = [:], monthly: [TotalsKey: TotalsDelta] = [:]
                for stored in snapshot.records where !stored.deleted && stored.expense.parts != nil {
                    let expense = stored.expense
                    expense.forEachCategoryShare { category, amount, count in
                        let key = TotalsKey(day: expense.date, category: category, currency: expense.currency)
                        // The GROUP BY put the whole amount and the count under the expense's own key.
                        let change = count == 1 ? amount - expense.amount : amount
                        daily[key, default: .init()].amount += change
                        monthly[key.month, default: .init()].amount += change
                    }
                }
                for (deltas, table, column) in [(daily, "daily_totals", "day"), (monthly, "monthly_totals", "month")] {
                    let changed = deltas.filter { $0.value.amount != 0 }.map { ($0.key, $0.value) }
                    guard !changed.isEmpty else { continue }
                    for statement in totalsStatements(changed, table: table, column: column, ledger: number) {
                        try connection.query(statement.sql, statement.parameters)
                    }
                }
            }
        }
    }
}
