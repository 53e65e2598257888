import FoundationEssentials
import PostgreSQL
import SystemKit

/// The PostgreSQL connections a daemon's open ledgers share, at most ``size`` of them: a ledger holds one only
/// while it has work queued (``PostgresLedgerStore`` leases one at its first statement and gives it back when its
/// thread runs out of work), so a daemon hosting thousands of ledgers, most of them idle, needs as many backends
/// as ledgers are busy at once, not one per open ledger (the shape of PgBouncer's transaction pooling, inside
/// the daemon).
///
/// A lease blocks the calling thread (a ledger's own thread, never the network loop) while every connection is
/// leased; connections are made when first needed, so an idle daemon holds none but the few it has used.
package final class PostgresConnectionPool: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `made`, `closed` and `waitCount` are read and written only while holding `condition`'s
    // lock; a connection is used by one thread at a time: the one that leased it, until it gives it back.
    private let condition = ThreadCondition()
    private var idle: [PostgresConnection] = []
    private var made = 0
    private var closed = false
    private let connect: @Sendable () throws -> PostgresConnection
    /// The most connections the pool holds at once.
    package let size: Int
    private var waitCount = 0

    /// A pool of at most `size` connections, each made by `connect` when first needed.
    package init(size: Int, connect: @escaping @Sendable () throws -> PostgresConnection) {
        self.size = max(1, size)
        self.connect = connect
    }

    /// How many leases had to wait for a connection to come back.
    package var waits: Int {
        condition.lock()
        defer { condition.unlock() }
        return waitCount
    }

    /// The connections made and not yet closed, leased or idle.
    package var connectionCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return made
    }

    /// A connection for the calling thread alone until ``giveBack(_:)``: an idle one, a new one while fewer than
    /// ``size`` exist, else the next one given back.
    /// - Throws: what `connect` throws (PostgreSQL unreachable), or ``LedgerError/storageUnavailable(_:)`` once the
    ///   pool is closed.
    package func lease() throws -> PostgresConnection {
        condition.lock()
        var waited = false
        while idle.isEmpty && made >= size && !closed {
            if !waited { waitCount += 1; waited = true }
            condition.wait()
        }
        if closed {
            condition.unlock()
            throw LedgerError.storageUnavailable("the daemon is stopping")
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        made += 1
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            made -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Takes back a leased connection. One left inside a transaction (a failure between `BEGIN` and `COMMIT`
    /// that could not roll back) is rolled back first; one whose link is lost is kept all the same (the next
    /// lease reconnects it, with the store's backoff) so that the count of backends stays bounded.
    package func giveBack(_ connection: PostgresConnection) {
        connection.rollbackIfOpen()
        condition.lock()
        if closed {
            made -= 1
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }

    /// Closes the idle connections and refuses new leases; connections still leased are closed as they come back.
    package func close() {
        condition.lock()
        closed = true
        made -= idle.count
        var closing: [PostgresConnection] = []
        swap(&closing, &idle)
        condition.broadcast()
        condition.unlock()
        closing.removeAll()  // outside the lock: each connection closes its backend as it is released
    }
}
