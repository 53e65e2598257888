import ExpenseCore
import Foundation
import Glibc
import ProcessSpawn
import PostgreSQL
import Synchronization

/// PostgreSQL's own best multi-row insert of the rows a push writes, the peer of the `pg` section's push figures:
/// per transaction ONE round trip through libpq's pipeline mode (`BEGIN`, one `INSERT … SELECT FROM unnest(…)`
/// of all its rows, `COMMIT`), durable (`synchronous_commit` on), into a table shaped like `records` with the
/// same primary key; with another ``transaction``, PostgreSQL doing a push's work (``PostgresPushWork``). One
/// thread per connection, each blocked in libpq between rounds.
struct PostgresInsertLoad {
    let conninfo: String
    let connections: Int
    let rowsPerTransaction: Int
    let warmup: Double // not money: seconds
    let duration: Double // not money: seconds
    /// The statements of one transaction of connection `index` (in one pipeline round trip, `BEGIN` … `COMMIT`
    /// included), `seq` the last row number that connection used: the plain insert by default,
    /// ``PostgresPushWork`` for a push's rows.
    var transaction: @Sendable (_ index: Int, _ rows: Int, _ seq: inout Int64) -> [PostgresStatement] = { index, rows, seq in
        [PostgresStatement("BEGIN"), PostgresInsertLoad.insert(rows: rows, ledger: "bench-\(index)", seq: &seq),
         PostgresStatement("COMMIT")]
    }

    struct Result {
        var rowsPerSecond: Double // not money: a measurement
        var transactionsPerSecond: Double // not money: a measurement
        var latenciesMs: [Double] // not money: a measurement
        /// CPU of the driving threads during the run (cores, from ``SchedStat``), to show the driver is not the
        /// bottleneck.
        var driverCores: Double // not money: a measurement
    }

    static let table = "bench_rows"

    /// What the threads counted (a class: a `Mutex` cannot be captured by the threads' closures itself).
    private final class Totals: Sendable {
        let state = Mutex<(rows: Int, transactions: Int, latencies: [Double], error: String?)>((0, 0, [], nil)) // not money: a measurement
        /// Nanoseconds the driving threads ran (``SchedStat``).
        let driverNanoseconds = Mutex<UInt64>(0)
    }

    /// Creates (again) the table the load inserts into.
    static func prepare(conninfo: String) throws(BenchError) {
        do {
            let connection = try PostgresConnection(conninfo)
            try connection.execute("""
                DROP TABLE IF EXISTS \(table);
                CREATE TABLE \(table) (ledger text NOT NULL, id uuid NOT NULL, seq bigint NOT NULL, version bigint NOT NULL,
                    deleted boolean NOT NULL, amount bigint NOT NULL, currency text NOT NULL, category text NOT NULL,
                    day integer NOT NULL, note text NOT NULL, PRIMARY KEY (ledger, id))
                """)
        } catch {
            throw .other("PostgreSQL: \(error)")
        }
    }

    func run() throws(BenchError) -> Result {
        let shared = Totals()
        let began = MonotonicClock.now()
        let windowStart = began + warmup, windowEnd = began + warmup + duration
        let group = DispatchGroup()
        let (conninfo, rows, transaction) = (conninfo, rowsPerTransaction, self.transaction)
        for index in 0..<connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let cpuBefore = SchedStat.currentThread()
                defer {
                    if let cpuBefore, let cpuAfter = SchedStat.currentThread() {
                        shared.driverNanoseconds.withLock { $0 += cpuAfter &- cpuBefore }
                    }
                }
                do {
                    let connection = try PostgresConnection(conninfo)
                    var counted = (rows: 0, transactions: 0, latencies: [Double]())
                    var seq: Int64 = 0
                    while true {
                        let start = MonotonicClock.now()
                        if start >= windowEnd { break }
                        _ = try connection.pipeline(transaction(index, rows, &seq))
                        let end = MonotonicClock.now()
                        if start >= windowStart && end <= windowEnd {
                            counted.rows += rows
                            counted.transactions += 1
                            counted.latencies.append((end - start) * 1000)
                        }
                    }
                    shared.state.withLock {
                        $0.rows += counted.rows
                        $0.transactions += counted.transactions
                        $0.latencies += counted.latencies
                    }
                } catch {
                    shared.state.withLock { $0.error = $0.error ?? "\(error)" }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        let cpu = Double(shared.driverNanoseconds.withLock { $0 }) / 1e9
        let elapsed = MonotonicClock.now() - began
        let totals = shared.state.withLock { $0 }
        if let error = totals.error { throw .other("PostgreSQL insert load: \(error)") }
        return Result(rowsPerSecond: Double(totals.rows) / duration, transactionsPerSecond: Double(totals.transactions) / duration,
                      latenciesMs: totals.latencies, driverCores: cpu / elapsed)
    }

    /// One INSERT of `rows` rows shaped like a push's creates.
    static func insert(rows: Int, ledger: String, seq: inout Int64) -> PostgresStatement {
        var ids: [PostgresValue] = [], seqs: [PostgresValue] = [], amounts: [PostgresValue] = []
        ids.reserveCapacity(rows)
        seqs.reserveCapacity(rows)
        amounts.reserveCapacity(rows)
        for _ in 0..<rows {
            seq += 1
            ids.append(.text(UUIDText.lowercased(UUID())))
            seqs.append(.integer(seq))
            amounts.append(.integer(100 + seq % 9_000))
        }
        return PostgresStatement("""
            INSERT INTO \(table) (ledger, id, seq, version, deleted, amount, currency, category, day, note)
            SELECT $1, id, seq, 1, false, amount, 'USD', 'food', 20261130, '' FROM unnest($2::uuid[], $3::bigint[], $4::bigint[]) AS r(id, seq, amount)
            """, [.text(ledger), .array(ids), .array(seqs), .array(amounts)])
    }
}
