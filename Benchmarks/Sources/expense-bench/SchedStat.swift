import Foundation
import Glibc
import ProcessSpawn

/// CPU time per thread from the scheduler's own account (`/proc/PID/task/TID/schedstat`, first field: nanoseconds
/// on a CPU), the way the bench reports cores.
///
/// Why not `utime` and `stime` (`/proc/PID/task/TID/stat`): they are kept in clock ticks, and the split between user
/// and system time is sampled at the ticks (here both busy threads of a pushed daemon showed almost no system time,
/// though they make a system call for every read, write and commit). `schedstat` is the scheduler's own count of
/// the nanoseconds each thread ran: the figure to set beside a thread's instruction count (callgrind) when asking
/// how many instructions per cycle it ran.
enum SchedStat {
    /// Nanoseconds on a CPU of each live thread of `pid`, by thread id.
    static func threads(of pid: pid_t) -> [pid_t: UInt64] {
        let directory = "/proc/\(pid)/task"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var result: [pid_t: UInt64] = [:]
        for name in names {
            guard let tid = pid_t(name), let nanoseconds = read(directory + "/" + name + "/schedstat") else { continue }
            result[tid] = nanoseconds
        }
        return result
    }

    /// Nanoseconds on a CPU of the calling thread so far.
    static func currentThread() -> UInt64? { read("/proc/thread-self/schedstat") }

    private static func read(_ path: String) -> UInt64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let first = text.split(separator: " ", maxSplits: 1).first else { return nil }
        return UInt64(first)
    }

    /// The CPU each thread used between two readings of ``threads(of:)``, in cores over `seconds`, busiest first.
    /// A thread that ended in between is missing from the second reading and is left out.
    static func cores(from before: [pid_t: UInt64], to after: [pid_t: UInt64], seconds: Double) -> [Double] { // not money: a measurement
        guard seconds > 0 else { return [] }
        return after.map { tid, nanoseconds in Double(nanoseconds &- (before[tid] ?? 0)) / 1e9 / seconds }.sorted(by: >)
    }
}

/// The daemon's CPU over one load run, from ``SchedStat``: all its threads, and its two busiest (the loop
/// thread and the ledger's thread, in either order).
struct DaemonCPU {
    var total: Double // not money: cores
    var busiest: Double // not money: cores
    var second: Double // not money: cores

    /// Runs `body` and returns its value with the CPU `pid` used meanwhile.
    static func measure<T>(_ pid: pid_t, _ body: () throws(BenchError) -> T) throws(BenchError) -> (T, DaemonCPU) {
        let before = SchedStat.threads(of: pid)
        let began = MonotonicClock.now()
        let value = try body()
        let cores = SchedStat.cores(from: before, to: SchedStat.threads(of: pid), seconds: MonotonicClock.now() - began)
        return (value, DaemonCPU(total: cores.reduce(0, +), busiest: cores.first ?? 0, second: cores.dropFirst().first ?? 0))
    }
}
