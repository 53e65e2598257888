import ExpenseCore
import ExpenseProtocol
import Foundation
import PostgreSQL

extension PostgresLedgerStore {
    package func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws {
        pendingOutcomes[SQLiteLedgerStore.OutcomeKey(clientId: clientId, mutationId: mutationId)] = outcome
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        if let pending = pendingOutcomes[SQLiteLedgerStore.OutcomeKey(clientId: clientId, mutationId: mutationId)] {
            return pending
        }
        let row = try Self.storage {
            try connection.query("""
                SELECT status, version, seq, record, reason, field, message FROM outcomes
                WHERE ledger = $1 AND client = $2 AND mutation_id = $3
                """, [.text(name), .text(UUIDText.lowercased(clientId)), .integer(mutationId)]).first
        }
        return try row.map { try Self.decodeOutcome($0, from: 0) }
    }

    /// The outcome in columns `status, version, seq, record, reason, field, message` from `column` on.
    static func decodeOutcome(_ row: PostgresRow, from column: Int) throws -> ConsumedOutcome {
        let c = column
        switch row.int64(c) {
        case 0: return .applied(version: row.int64(c + 1), seq: row.int64(c + 2))
        case 1:
            guard let id = UUIDText.parse(row.text(c + 3)) else { throw LedgerError.storageFailed("a kept conflict has no record id") }
            return .conflict(id: id)
        default: return .rejected(MutationRejection(reason: row.text(c + 4), field: row.optionalText(c + 5), message: row.text(c + 6)))
        }
    }

    /// The statements that write the transaction's outcomes in one statement and forget, per client that pushed, those that fell
    /// out of the retention window: in the same transaction as the effects and the last consumed mutationIds.
    func outcomeStatements() -> [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if !pendingOutcomes.isEmpty {
            statements.append(Self.upsertOutcomesStatement(
                pendingOutcomes.map { LedgerSnapshot.KeptOutcome(clientId: $0.key.clientId, mutationId: $0.key.mutationId, outcome: $0.value) },
                ledger: name))
        }
        let pruned = pendingLastMutationIds.filter { $0.value > outcomeRetention }
        guard !pruned.isEmpty else { return statements }
        statements.append(PostgresStatement("""
            DELETE FROM outcomes o USING unnest($2::uuid[], $3::bigint[]) AS p(client, below)
            WHERE o.ledger = $1 AND o.client = p.client AND o.mutation_id <= p.below
            """, [.text(name), .array(pruned.keys.map { .text(UUIDText.lowercased($0)) }),
                  .array(pruned.values.map { .integer($0 - outcomeRetention) })]))
        return statements
    }

    /// Writes `outcomes` of `ledger` in one statement, replacing those with the same key.
    static func upsertOutcomes(_ outcomes: [LedgerSnapshot.KeptOutcome], ledger: String, connection: PostgresConnection) throws {
        let statement = upsertOutcomesStatement(outcomes, ledger: ledger)
        try connection.query(statement.sql, statement.parameters)
    }

    /// ``upsertOutcomes(_:ledger:connection:)``'s statement.
    static func upsertOutcomesStatement(_ outcomes: [LedgerSnapshot.KeptOutcome], ledger: String) -> PostgresStatement {
        var columns = Array(repeating: [PostgresValue](), count: 9)
        for kept in outcomes {
            var values: [PostgresValue] = [.text(UUIDText.lowercased(kept.clientId)), .integer(kept.mutationId),
                                           .integer(0), .null, .null, .null, .null, .null, .null]
            switch kept.outcome {
            case .applied(let version, let seq):
                values[3] = .integer(version)
                values[4] = .integer(seq)
            case .conflict(let id):
                values[2] = .integer(1)
                values[5] = .text(UUIDText.lowercased(id))
            case .rejected(let rejection):
                values[2] = .integer(2)
                values[6] = .text(rejection.reason)
                values[7] = rejection.field.map { .text($0) } ?? .null
                values[8] = .text(rejection.message)
            }
            for (index, value) in values.enumerated() { columns[index].append(value) }
        }
        return PostgresStatement("""
            INSERT INTO outcomes (ledger, client, mutation_id, status, version, seq, record, reason, field, message)
            SELECT $1, * FROM unnest($2::uuid[], $3::bigint[], $4::smallint[], $5::bigint[], $6::bigint[],
                                     $7::uuid[], $8::text[], $9::text[], $10::text[])
            ON CONFLICT (ledger, client, mutation_id) DO UPDATE SET status = excluded.status,
                version = excluded.version, seq = excluded.seq, record = excluded.record,
                reason = excluded.reason, field = excluded.field, message = excluded.message
            """, [.text(ledger)] + columns.map(PostgresValue.array))
    }

    /// Outcomes kept for `clientId` (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        Int(try Self.storage {
            try connection.query("SELECT count(*) FROM outcomes WHERE ledger = $1 AND client = $2",
                                 [.text(name), .text(UUIDText.lowercased(clientId))]).first?.int64(0) ?? 0
        })
    }
}
