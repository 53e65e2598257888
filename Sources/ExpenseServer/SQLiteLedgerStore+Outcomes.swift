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
        let key = OutcomeKey(clientId: clientId, mutationId: mutationId)
        if pendingOutcomes.updateValue(outcome, forKey: key) == nil { pendingOutcomeKeys.append(key) }
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        if let pending = pendingOutcomes[OutcomeKey(clientId: clientId, mutationId: mutationId)] { return pending }
        return try connection.cached(literal: """
            SELECT status, version, seq, record, reason, field, message FROM outcomes
            WHERE client = ?1 AND mutation_id = ?2
            """).first([Self.blob(clientId), .integer(mutationId)]) { try Self.decodeOutcome($0, from: 0) }
    }

    /// The outcome in columns `status, version, seq, record, reason, field, message` from `column` on.
    static func decodeOutcome(_ row: SQLiteRow, from column: Int32) throws -> ConsumedOutcome {
        let c = column
        switch row.int64(c) {
        case 0: return .applied(version: row.int64(c + 1), seq: row.int64(c + 2))
        case 1: return .conflict(id: try uuid(row.blob(c + 3)))
        default: return .rejected(MutationRejection(reason: row.text(c + 4), field: row.optionalText(c + 5),
                                                    message: row.text(c + 6)))
        }
    }

    /// `outcome` as the values of columns `status, version, seq, record, reason, field, message`.
    static func outcomeValues(_ outcome: ConsumedOutcome) -> [SQLiteValue] {
        var values: [SQLiteValue] = [.integer(0), .null, .null, .null, .null, .null, .null]
        switch outcome {
        case .applied(let version, let seq):
            values[1] = .integer(version)
            values[2] = .integer(seq)
        case .conflict(let id):
            values[0] = .integer(1)
            values[3] = blob(id)
        case .rejected(let rejection):
            values[0] = .integer(2)
            values[4] = .text(rejection.reason)
            values[5] = rejection.field.map { .text($0) } ?? .null
            values[6] = .text(rejection.message)
        }
        return values
    }

    /// Writes the transaction's outcomes, in the order they were kept, and forgets, per client that pushed, those
    /// that fell out of the retention window: in the same transaction as the effects and the last consumed
    /// mutationIds.
    func flushOutcomes() throws {
        try rows.outcomes.run(count: pendingOutcomeKeys.count) { row, index in
            let key = pendingOutcomeKeys[index]
            guard let outcome = pendingOutcomes[key] else { preconditionFailure("every kept key has its outcome") }
            try Self.bind(key.clientId, to: &row)
            try row.integer(key.mutationId)
            for value in Self.outcomeValues(outcome) { try row.value(value) }
        }
        for (clientId, last) in pendingLastMutationIds where last > outcomeRetention {
            try connection.cached(literal: "DELETE FROM outcomes WHERE client = ?1 AND mutation_id <= ?2")
                .run([Self.blob(clientId), .integer(last - outcomeRetention)])
        }
    }

    /// Outcomes kept for `clientId` (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        try connection.cached("SELECT count(*) FROM outcomes WHERE client = ?1").first([Self.blob(clientId)]) { $0.int(0) } ?? 0
    }
}
