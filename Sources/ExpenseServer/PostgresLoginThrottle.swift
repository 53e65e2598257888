import Dispatch
import PostgreSQL

/// The login throttle's count in PostgreSQL (the `auth_failures` table): the same rule as ``AuthThrottle``
/// (Protocol.md section 4), with the failures and the next turn of each (address, ledger) key kept in the
/// database, so every daemon of the database spaces out the same key's attempts and N daemons do not allow N
/// times the guesses.
///
/// Every query runs on one serial Dispatch queue (never the loop's thread, never the cooperative pool), on a
/// connection leased from the daemon's pool for that query alone (``PostgresConnectionPool``: the throttle adds no
/// backend of its own); times are the database's clock (`clock_timestamp()`), so the daemons' clocks need not
/// agree. Keys are bounded as in memory: an invalid ledger name, or a 33rd name of one address, counts
/// against the address's overflow key (ledger `''`); keys are forgotten 10 minutes after their last failure.
/// When the database cannot be reached, the attempt is judged by the local throttle alone.
final class PostgresLoginThrottle: SharedLoginThrottle {
    private let pool: PostgresConnectionPool
    private let freeFailures: Int
    /// The interval between turns, in microseconds.
    private let intervalMicroseconds: Int64
    private let queue = DispatchQueue(label: "expense.login-throttle")
    private let log: ServerLog

    private static let forgetAfterMicroseconds: Int64 = 600_000_000
    private static let maximumWaitMicroseconds: Int64 = 30_000_000
    /// The key of an address's further and invalid ledger names.
    private static let overflowLedger = ""

    init(pool: PostgresConnectionPool, freeFailures: Int, interval: Duration, log: ServerLog) {
        self.pool = pool
        self.freeFailures = freeFailures
        let (seconds, attoseconds) = interval.components
        intervalMicroseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        self.log = log
    }

    func admit(_ address: String, ledger: String, completion: @escaping @Sendable (AuthThrottle.Decision) -> Void) {
        let rule = Rule(freeFailures: freeFailures, intervalMicroseconds: intervalMicroseconds)
        queue.async {
            let decision: AuthThrottle.Decision?
            do {
                decision = try self.withConnection { live in
                    try live.transaction { try Self.admit(address, ledger, rule, on: live) }
                }
            } catch {
                self.log(.warning, "login throttle: could not check PostgreSQL (\(error)); the local throttle alone decides")
                decision = nil
            }
            completion(decision ?? .evaluate(after: .zero))
        }
    }

    func recordFailure(_ address: String, ledger: String, completion: @escaping @Sendable () -> Void) {
        let rule = Rule(freeFailures: freeFailures, intervalMicroseconds: intervalMicroseconds)
        queue.async {
            do {
                try self.withConnection { live in
                    try live.transaction { try Self.recordFailure(address, ledger, rule, on: live) }
                }
            } catch {
                self.log(.warning, "login throttle: could not count a failure in PostgreSQL (\(error)); the local throttle alone decides")
            }
            completion()
        }
    }

    /// The throttle's rule (Sendable, for the queue).
    private struct Rule: Sendable {
        var freeFailures: Int
        var intervalMicroseconds: Int64
    }

    /// Runs `body` on a connection leased from the pool (reconnected first when its link was lost) and gives it back.
    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try pool.lease()
        defer { pool.giveBack(connection) }
        if !connection.isConnected { try connection.reconnect() }
        return try body(connection)
    }

    /// The key's row locked for the transaction: (failures, last failure, next turn, now), times in microseconds.
    private static func lockedRecord(_ address: String, _ ledger: String, on connection: PostgresConnection) throws
        -> (failures: Int64, lastFailure: Int64, nextSlot: Int64, now: Int64)?
    {
        let row = try connection.query("""
            SELECT failures, \(microseconds("last_failure")), \(microseconds("coalesce(next_slot, last_failure)")),
                   \(microseconds("clock_timestamp()"))
            FROM auth_failures WHERE address = $1 AND ledger = $2 FOR UPDATE
            """, [.text(address), .text(ledger)]).first
        return row.map { ($0.int64(0), $0.int64(1), $0.int64(2), $0.int64(3)) }
    }

    private static func admit(_ address: String, _ ledger: String, _ rule: Rule, on connection: PostgresConnection) throws -> AuthThrottle.Decision {
        let key = try key(address, ledger, on: connection)
        guard let record = try lockedRecord(address, key, on: connection) else { return .evaluate(after: .zero) }
        if record.now - record.lastFailure > forgetAfterMicroseconds {
            try connection.query("DELETE FROM auth_failures WHERE address = $1 AND ledger = $2", [.text(address), .text(key)])
            return .evaluate(after: .zero)
        }
        guard record.failures >= rule.freeFailures else { return .evaluate(after: .zero) }
        let slot = max(record.now, record.nextSlot)
        let wait = Duration.microseconds(slot - record.now)
        guard slot - record.now <= maximumWaitMicroseconds else { return .refuse(retryAfter: wait) }
        try connection.query("UPDATE auth_failures SET next_slot = to_timestamp($3::bigint / 1000000.0) WHERE address = $1 AND ledger = $2",
                             [.text(address), .text(key), .integer(slot + rule.intervalMicroseconds)])
        return .evaluate(after: wait)
    }

    private static func recordFailure(_ address: String, _ ledger: String, _ rule: Rule, on connection: PostgresConnection) throws {
        // Every address's keys are forgotten 10 minutes after their last failure (by the index on last_failure), so
        // the table holds only the last 10 minutes' failing keys, as the in-memory table does.
        try connection.query("DELETE FROM auth_failures WHERE last_failure < clock_timestamp() - interval '600 seconds'")
        let key = try key(address, ledger, on: connection)
        try connection.query("""
            INSERT INTO auth_failures (address, ledger, failures, last_failure, next_slot)
            VALUES ($1, $2, 0, clock_timestamp(), clock_timestamp()) ON CONFLICT (address, ledger) DO NOTHING
            """, [.text(address), .text(key)])
        // Past the free failures, the next turn is one interval after this failure at the earliest (turns already
        // handed to waiting attempts stay theirs).
        try connection.query("""
            UPDATE auth_failures SET failures = failures + 1, last_failure = clock_timestamp(),
                next_slot = CASE WHEN failures + 1 >= $3
                    THEN greatest(coalesce(next_slot, clock_timestamp()), clock_timestamp() + $4::bigint * interval '1 microsecond')
                    ELSE next_slot END
            WHERE address = $1 AND ledger = $2
            """, [.text(address), .text(key), .integer(Int64(rule.freeFailures)), .integer(rule.intervalMicroseconds)])
    }

    /// The key an attempt counts against: its own ledger key when it exists or a valid name may still get one,
    /// else the address's overflow key.
    private static func key(_ address: String, _ ledger: String, on connection: PostgresConnection) throws -> String {
        guard LedgerDirectory.isValid(name: ledger) else { return overflowLedger }
        let row = try connection.query("""
            SELECT count(*) FILTER (WHERE ledger = $2), count(*) FILTER (WHERE ledger <> '')
            FROM auth_failures WHERE address = $1
            """, [.text(address), .text(ledger)]).first
        let own = row?.int64(0) ?? 0, named = row?.int64(1) ?? 0
        return own > 0 || named < AuthThrottle.maximumLedgersPerAddress ? ledger : overflowLedger
    }

    /// A `timestamptz` expression as whole microseconds since 1970.
    private static func microseconds(_ expression: String) -> String {
        "(extract(epoch FROM \(expression)) * 1000000)::bigint"
    }
}
