import FoundationEssentials
import PostgreSQL

/// Where a PostgreSQL ledger store's connection comes from, leasing it from the daemon's pool while the ledger has
/// work, and reconnecting a lost one with backoff.
extension PostgresLedgerStore {
    /// Where a store's connection comes from.
    enum Source {
        /// A connection of its own, for the store's whole life (tools, tests, `expensed compact`).
        case own(PostgresConnection)
        /// The daemon's pool, leased while the ledger has work.
        case pool(PostgresConnectionPool)

        var isPooled: Bool { if case .pool = self { true } else { false } }
    }

    /// The connection to use now: its own, or the one leased (leasing one, which may wait for another ledger to
    /// give one back, when none is held).
    /// - Throws: ``LedgerError/storageUnavailable(_:)`` when no connection can be made.
    var connection: PostgresConnection {
        get throws {
            switch source {
            case .own(let own): return own
            case .pool(let pool):
                if let leased { return leased }
                let connection = try Self.storage { try pool.lease() }
                leased = connection
                return connection
            }
        }
    }

    /// The connection held now, without leasing one.
    var heldConnection: PostgresConnection? {
        switch source {
        case .own(let own): own
        case .pool: leased
        }
    }

    /// A store on the pool holds a connection only while its ledger has work.
    package var leasesWhileBusy: Bool { source.isPooled }

    /// Gives a leased connection back to the pool (the ledger's thread has no more work); nothing inside a
    /// transaction, nor for a connection of its own.
    package func becameIdle() {
        guard case .pool(let pool) = source, !inTransaction, let held = leased else { return }
        leased = nil
        pool.giveBack(held)
    }

    /// Reconnects a lost connection, at most once per backoff step (100 ms doubling to 5 s); meanwhile, and
    /// when reconnecting fails, ``LedgerError/storageUnavailable(_:)``.
    func ensureConnected() throws {
        guard try !connection.isConnected else { return }
        guard reconnect.mayTry(at: .now) else {
            throw LedgerError.storageUnavailable("PostgreSQL is unreachable; retrying with backoff")
        }
        do {
            try connection.reconnect()
            reconnect.succeeded()
            generation = nil
        } catch {
            reconnect.failed(at: .now)
            throw Self.storageError(error)
        }
    }

    /// Runs `body`, turning a ``PostgreSQL/PostgresError`` into the ledger's error.
    static func storage<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw storageError(error) }
    }

    static func storageError(_ error: any Error) -> any Error {
        guard let postgres = error as? PostgresError else { return error }
        return postgres.isConnectionFailure ? LedgerError.storageUnavailable(postgres.message)
                                            : LedgerError.storageFailed(postgres.description)
    }
}

/// When to try reconnecting to PostgreSQL again: 100 ms after the first failure, doubling to 5 s.
struct ReconnectBackoff {
    private var delay: Duration = .zero
    private var notBefore: ContinuousClock.Instant?

    func mayTry(at now: ContinuousClock.Instant) -> Bool { notBefore.map { now >= $0 } ?? true }

    mutating func failed(at now: ContinuousClock.Instant) {
        delay = delay == .zero ? .milliseconds(100) : min(delay * 2, .seconds(5))
        notBefore = now + delay
    }

    mutating func succeeded() {
        delay = .zero
        notBefore = nil
    }
}
