import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The threads that run every ledger's work: at most ``limit`` of them, shared by all the ledgers of the process,
/// each running one ledger's queue (``LedgerExecutor``) at a time.
///
/// Why threads and not the cooperative pool: a ledger's work blocks (SQLite's fsync in a commit, a PostgreSQL
/// round trip); on the pool's two threads that would stall every connection. Why shared: a thread per open
/// ledger made a host of thousands of households hold thousands of threads, nearly all of them idle. A ledger
/// with work is queued here; a free thread takes the ledger at the front and runs up to ``batch`` of its items,
/// then puts it back at the end if it has more (so a busy ledger cannot keep the others waiting), and a ledger
/// never runs on two threads at once. Threads are started as needed, up to the limit, and stay.
final class LedgerThreads: @unchecked Sendable {
    // @unchecked Sendable: `ready`, `next`, `threads` and `waiting` are read and written only while holding
    // `condition`'s lock; `limit` and `batch` are immutable.
    private let condition = ThreadCondition()
    private var ready: [LedgerExecutor] = []
    private var next = 0
    private var threads = 0
    private var waiting = 0
    /// The most threads running ledger work at once.
    let limit: Int
    /// The most items of one ledger run before the others' turn.
    let batch: Int

    /// The threads of this process's ledgers: four per core, at least eight, so that a few ledgers blocked in a
    /// commit's fsync or a database round trip at once leave threads for the others' work, which otherwise waits
    /// only for a free thread, never for another ledger's disk.
    static let shared = LedgerThreads(limit: max(8, 4 * onlineCores), batch: 64)

    /// The cores online, from the C library: Foundation's `activeProcessorCount` also reads the cgroup's quota, and
    /// reaching it made every daemon's start touch 0.75 MiB more of Foundation's pages (measured in the resident
    /// set of an empty daemon). A quota below the cores only raises a limit on threads that start as needed.
    private static var onlineCores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    init(limit: Int, batch: Int) {
        self.limit = max(1, limit)
        self.batch = max(1, batch)
    }

    /// The threads started so far.
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Queues `executor`, which has work and is not queued or running now.
    func schedule(_ executor: LedgerExecutor) {
        condition.lock()
        ready.append(executor)
        if waiting > 0 {
            condition.signal()
        } else if threads < limit {
            threads += 1
            do {
                try SystemThread.start(name: "ledgers-\(threads)") { [self] in work() }
            } catch {
                threads -= 1  // the work queued waits for the threads running; the next schedule tries again
            }
        }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == ready.count {
                waiting += 1
                condition.wait()
                waiting -= 1
            }
            let executor = ready[next]
            next += 1
            if next == ready.count {  // drained: reuse the storage instead of growing forever
                ready.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 1024, next * 2 >= ready.count {  // never drained under steady load: drop the run part
                ready.removeFirst(next)
                next = 0
            }
            condition.unlock()
            if executor.runBatch(atMost: batch) { schedule(executor) }
        }
    }
}
