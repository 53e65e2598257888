import ExpenseCore
import FoundationEssentials

/// Compaction (Protocol.md §5.9; docs/reliability.md "History and compaction").
///
/// How `expensed compact` works beside a serving daemon: it does not take `DIR/expensed.lock`. It opens the
/// ledger's SQLite file itself (WAL mode: readers never wait) and removes history rows in short steps of
/// ``SQLiteLedgerStore/compactionBatch`` rows, each its own transaction, the horizon first; while a step holds
/// the write lock the daemon's next commit waits for it (`busy_timeout`, 5 s), it does not fail. What the
/// daemon keeps in memory stays true because compaction changes nothing it keeps there: no `records` row goes
/// (a purged tombstone keeps its row and only leaves the pulls), so its head, totals and id → seq map still
/// describe the file, and it reads the horizon from the file on every pull.
extension LedgerDirectory {
    /// The cutoff for `keepDays`: changes made before it are removed.
    public static func cutoff(keepDays: Int, now: Int64? = nil) -> Int64 {
        (now ?? HistoryAuthor.now()) - Int64(keepDays) * 86_400
    }

    /// Compacts the ledger `name` of `dataDirectory` through its file, whether or not a daemon serves it.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/damagedDatabase(path:report:)``, or a storage error.
    public static func compact(dataDirectory: String, ledger name: String, keepDays: Int) throws -> (horizon: Int64, tombstones: Int, entries: Int) {
        try compact(dataDirectory: dataDirectory, ledger: name, before: cutoff(keepDays: keepDays))
    }

    static func compact(dataDirectory: String, ledger name: String, before cutoff: Int64) throws -> (horizon: Int64, tombstones: Int, entries: Int) {
        let path = databasePath(name, in: dataDirectory)
        guard isValid(name: name), FileManager.default.fileExists(atPath: path) else { throw LedgerError.unknownLedger(name) }
        do {
            let store = try SQLiteLedgerStore(path: path, name: name, currency: .usd)
            let report = try store.compact(before: cutoff)
            return (report.horizon, report.tombstones, report.entries)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.storage(error)
        }
    }

    /// Compacts every ledger (`expensed serve --compact-after`, ``CompactionSchedule``): removes what changed
    /// before `cutoff`, `keepDays` only naming it in the log lines. An open ledger is compacted on its own
    /// thread, between its group commits: the work is queued behind what the thread already holds, so a request
    /// queued later sees the result. A ledger on disk that is not open is compacted through its file, one after
    /// another on a Dispatch worker, as `expensed compact` does beside a daemon, unless a request opens it first
    /// (``ClosedLedgerCompactions``): either way its first request sees it compacted. `done` gets one line per
    /// ledger for the log.
    public func compactLedgers(before cutoff: Int64, keepDays: Int, done: @escaping @Sendable (String) -> Void) {
        let open = openLedgers()
        Self.compact(open, before: cutoff, keepDays: keepDays, done: done)
        let openNames = Set(open.map(\.name)), dataDirectory = dataDirectory
        let closed: [String]
        do {
            closed = try Self.ledgerNames(in: dataDirectory).filter { !openNames.contains($0) }
        } catch {
            done("compaction could not list the ledgers: \(error)")
            return
        }
        closedCompactions.begin(closed, .init(cutoff: cutoff, keepDays: keepDays, done: done)) { name, cutoff in
            try Self.compact(dataDirectory: dataDirectory, ledger: name, before: cutoff)
        }
    }

    /// Compacts each of `ledgers` on its own thread (the rule of ``compactLedgers(before:keepDays:done:)``,
    /// shared with ``PostgresLedgerDirectory``).
    static func compact(_ ledgers: [Ledger], before cutoff: Int64, keepDays: Int, done: @escaping @Sendable (String) -> Void) {
        for ledger in ledgers {
            let name = ledger.name
            ledger.compact(before: cutoff) { result in
                switch result {
                case .success(let report):
                    done(compactedLine(name, (report.horizon, report.tombstones, report.entries), keepDays: keepDays))
                case .failure(let error):
                    done("compaction of ledger \(DisplayText.quoted(name)) failed: \(error)")
                }
            }
        }
    }

    /// The log line of a ledger compacted.
    static func compactedLine(_ name: String, _ report: (horizon: Int64, tombstones: Int, entries: Int), keepDays: Int) -> String {
        "compacted ledger \(DisplayText.quoted(name)): \(report.tombstones) tombstones purged and \(report.entries) "
            + "history entries removed, older than \(keepDays) days; purge horizon \(report.horizon)"
    }
}
