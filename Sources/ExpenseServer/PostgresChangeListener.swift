import FoundationEssentials
import PostgreSQL
import Synchronization
import SystemKit

/// Wakes this daemon's watchers when another daemon commits to a ledger of the same database: `LISTEN`s on
/// ``PostgresLedgerStore/changeChannel`` on a connection and thread of its own, and re-checks every ledger's
/// head every few seconds and after each reconnect (a notification sent while the connection was down is
/// lost; clients pull, so a lost one only delays a watcher).
final class PostgresChangeListener: Sendable {
    /// How often every ledger's head is read again anyway.
    static let recheckInterval: Duration = .seconds(3)

    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    private let done = ThreadCondition()

    /// Starts listening; `ledgers` gives the ledgers to refresh: by name, or all (`nil`).
    init(conninfo: String, schema: String?, ledgers: @escaping @Sendable (String?) -> [Ledger]) {
        let body: @Sendable () -> Void = { [self] in
            run(conninfo: conninfo, schema: schema, ledgers: ledgers)
            done.lock()
            finished.withLock { $0 = true }
            done.broadcast()
            done.unlock()
        }
        do {
            try SystemThread.start(name: "postgres-listener", body)
        } catch {
            // Nothing for stop() to wait for; this daemon's watchers then learn of other daemons' commits only when
            // their clients pull.
            finished.withLock { $0 = true }
        }
    }

    /// Stops the thread (within half a second) and waits for it.
    func stop() {
        stopping.store(true, ordering: .releasing)
        done.lock()
        while !finished.withLock({ $0 }) { done.wait() }
        done.unlock()
    }

    private func run(conninfo: String, schema: String?, ledgers: @Sendable (String?) -> [Ledger]) {
        var connection: PostgresConnection?
        var backoff: Duration = .milliseconds(100)
        var lastRecheck = ContinuousClock.now
        while !stopping.load(ordering: .acquiring) {
            do {
                if connection == nil {
                    let made = try PostgresConnection(conninfo, schema: schema)
                    try made.execute("LISTEN " + made.quotedIdentifier(PostgresLedgerStore.changeChannel))
                    connection = made
                    backoff = .milliseconds(100)
                    for ledger in ledgers(nil) { ledger.refreshFromStorage() }
                    lastRecheck = .now
                }
                guard let connection else { continue }
                let arrived = try connection.notifications(timeout: 0.5)
                for name in Set(arrived.map(\.payload)) {
                    for ledger in ledgers(name) { ledger.refreshFromStorage() }
                }
                if ContinuousClock.now - lastRecheck >= Self.recheckInterval {
                    for ledger in ledgers(nil) { ledger.refreshFromStorage() }
                    lastRecheck = .now
                }
            } catch {
                connection = nil
                let until = ContinuousClock.now + backoff
                while ContinuousClock.now < until && !stopping.load(ordering: .acquiring) {
                    sleepThread(for: Duration.milliseconds(50))
                }
                backoff = min(backoff * 2, .seconds(5))
            }
        }
    }
}
