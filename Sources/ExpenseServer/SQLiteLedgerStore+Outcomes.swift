import ExpenseProtocol
import Foundation
import SQLite

extension SQLiteLedgerStore {
    /// One kept outcome's key.
    struct OutcomeKey: Hashable {
        var clientId: UUID
        var mutationId: Int64
    }

    package func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws {
        pendingOutcomes[OutcomeKey(clientId: clientId, mutationId: mutationId)] = outcome
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        if let pending = pendingOutcomes[OutcomeKey(clientId: clientId, mutationId: mutationId)] { return pending }
        return try connection.cached("""
            SELECT status, version, seq, record, reason, field, message FROM outcomes
            WHERE client = ?1 AND mutation_id = ?2
            """).first([Self.blob(clientId), .integer(mutationId)]) { row in
            switch row.int64(0) {
            case 0: return .applied(version: row.int64(1), seq: row.int64(2))
            case 1: return .conflict(id: try Self.uuid(row.blob(3)))
            default: return .rejected(MutationRejection(reason: row.text(4), field: row.optionalText(5),
                                                        message: row.text(6)))
            }
        }
    }

    /// Writes the transaction's outcomes and forgets, per client that pushed, those that fell out of the
    /// retention window: in the same transaction as the effects and the last consumed mutationIds.
    func flushOutcomes() throws {
        for (key, outcome) in pendingOutcomes {
            var values: [SQLiteValue] = [Self.blob(key.clientId), .integer(key.mutationId), .integer(0), .null, .null, .null,
                                         .null, .null, .null]
            switch outcome {
            case .applied(let version, let seq):
                values[3] = .integer(version)
                values[4] = .integer(seq)
            case .conflict(let id):
                values[2] = .integer(1)
                values[5] = Self.blob(id)
            case .rejected(let rejection):
                values[2] = .integer(2)
                values[6] = .text(rejection.reason)
                values[7] = rejection.field.map { .text($0) } ?? .null
                values[8] = .text(rejection.message)
            }
            try connection.cached("""
                INSERT OR REPLACE INTO outcomes (client, mutation_id, status, version, seq, record, reason, field, message)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                """).run(values)
        }
        for (clientId, last) in pendingLastMutationIds where last > outcomeRetention {
            try connection.cached("DELETE FROM outcomes WHERE client = ?1 AND mutation_id <= ?2")
                .run([Self.blob(clientId), .integer(last - outcomeRetention)])
        }
    }

    /// Outcomes kept for `clientId` (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        try connection.cached("SELECT count(*) FROM outcomes WHERE client = ?1").first([Self.blob(clientId)]) { $0.int(0) } ?? 0
    }
}
