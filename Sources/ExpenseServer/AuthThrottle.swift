import FoundationEssentials
import Synchronization

/// Slows down token guessing per (peer address, ledger name) (Protocol.md section 4).
///
/// The first ``ServerConfiguration/authFreeFailures`` failed `hello`s for a key (within 10 minutes) are answered
/// at once. After that, every `hello` for that key — good or bad token, on any number of parallel connections —
/// is evaluated only at its turn, one per ``ServerConfiguration/authPenaltyInterval`` after the last failure
/// (default: one attempt per second, 3,600 an hour against a 256-bit token). An attempt whose turn is more
/// than 30 s away is refused at once without looking at the token (`throttled`, with the seconds to wait).
/// A key is forgotten 10 minutes after its last failure.
///
/// The ledger is part of the key so that, behind one address (an SSH tunnel, a NAT), a client with a stale
/// token for one ledger does not lock out the clients of the others. Memory stays bounded under a flood of
/// names: only a valid ledger name gets a key of its own, at most ``maximumLedgersPerAddress`` per address
/// (further names, and any invalid name, share the address's one overflow key), and at most
/// ``maximumKeys`` keys in all (when full, the keys whose last failure is oldest are forgotten first).
final class AuthThrottle: Sendable {
    /// When an attempt may be evaluated.
    enum Decision: Equatable {
        /// Evaluate after waiting this long (zero: now).
        case evaluate(after: Duration)
        /// Too many attempts queued: refuse without evaluating; the attempt's turn is this far away.
        case refuse(retryAfter: Duration)
    }

    /// What is throttled: an address and a ledger name (`nil`: the address's shared overflow key).
    private struct Key: Hashable {
        var address: String
        var ledger: String?
    }

    private struct Record {
        var failures = 0
        var lastFailure: ContinuousClock.Instant
        var nextSlot: ContinuousClock.Instant
    }

    private struct Table {
        var records: [Key: Record] = [:]
        /// How many keys with a ledger name each address holds.
        var namedKeys: [String: Int] = [:]
    }

    private static let forgetAfter: Duration = .seconds(600)
    private static let maximumWait: Duration = .seconds(30)
    /// At most this many keys are tracked in all.
    static let maximumKeys = 10_000
    /// At most this many ledger names of one address get keys of their own.
    static let maximumLedgersPerAddress = 32

    private let freeFailures: Int
    private let interval: Duration
    private let table = Mutex(Table())

    init(freeFailures: Int, interval: Duration) {
        self.freeFailures = freeFailures
        self.interval = interval
    }

    /// How many keys are tracked now (for tests of the bound).
    var trackedKeys: Int { table.withLock { $0.records.count } }

    /// Reserves a turn for an attempt from `address` at `ledger`.
    func admit(_ address: String, ledger: String, now: ContinuousClock.Instant = .now) -> Decision {
        table.withLock { table in
            let key = Self.key(address, ledger, in: table)
            guard var record = table.records[key] else { return .evaluate(after: .zero) }
            if now - record.lastFailure > Self.forgetAfter {
                Self.remove(key, from: &table)
                return .evaluate(after: .zero)
            }
            guard record.failures >= freeFailures else { return .evaluate(after: .zero) }
            let slot = max(now, record.nextSlot)
            let wait = slot - now
            guard wait <= Self.maximumWait else { return .refuse(retryAfter: wait) }
            record.nextSlot = slot + interval
            table.records[key] = record
            return .evaluate(after: wait)
        }
    }

    /// Records a failed attempt from `address` at `ledger`.
    func recordFailure(_ address: String, ledger: String, now: ContinuousClock.Instant = .now) {
        table.withLock { table in
            var key = Self.key(address, ledger, in: table)
            if table.records[key] == nil {
                if key.ledger != nil, table.namedKeys[address, default: 0] >= Self.maximumLedgersPerAddress {
                    key.ledger = nil
                }
                if table.records[key] == nil, table.records.count >= Self.maximumKeys { Self.makeRoom(in: &table, now: now) }
            }
            var record = table.records[key] ?? Record(lastFailure: now, nextSlot: now)
            if table.records[key] == nil, key.ledger != nil { table.namedKeys[address, default: 0] += 1 }
            record.failures += 1
            record.lastFailure = now
            // Past the free failures, the next attempt's turn is one interval after this failure at the
            // earliest (slots already handed to waiting attempts stay theirs).
            if record.failures >= freeFailures { record.nextSlot = max(record.nextSlot, now + interval) }
            table.records[key] = record
        }
    }

    /// The key an attempt counts against: its own ledger key when it exists or a valid name may still get one,
    /// else the address's overflow key.
    private static func key(_ address: String, _ ledger: String, in table: Table) -> Key {
        guard LedgerDirectory.isValid(name: ledger) else { return Key(address: address, ledger: nil) }
        let named = Key(address: address, ledger: ledger)
        if table.records[named] != nil || table.namedKeys[address, default: 0] < maximumLedgersPerAddress { return named }
        return Key(address: address, ledger: nil)
    }

    private static func remove(_ key: Key, from table: inout Table) {
        guard table.records.removeValue(forKey: key) != nil, key.ledger != nil else { return }
        table.namedKeys[key.address, default: 1] -= 1
        if table.namedKeys[key.address] == 0 { table.namedKeys[key.address] = nil }
    }

    /// Forgets expired keys; if that is not enough, the oldest tenth (by last failure), never all at once.
    private static func makeRoom(in table: inout Table, now: ContinuousClock.Instant) {
        for (key, record) in table.records where now - record.lastFailure > forgetAfter { remove(key, from: &table) }
        guard table.records.count >= maximumKeys else { return }
        let oldest = table.records.sorted { $0.value.lastFailure < $1.value.lastFailure }.prefix(maximumKeys / 10)
        for (key, _) in oldest { remove(key, from: &table) }
    }
}
