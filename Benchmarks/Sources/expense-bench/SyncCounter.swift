import Foundation
import Glibc
import ProcessSpawn

/// Counts a process's `fdatasync` and `fsync` calls while a load runs, with `perf stat` on the kernel's syscall
/// tracepoints (no ptrace stop per call, unlike strace): with `synchronous=FULL` our SQLite store syncs its WAL
/// once per group commit, so the count is its commits (and the few syncs of its checkpoints: an upper bound on
/// commits, so the group sizes derived from it are lower bounds). Needs `perf` and permission to trace (root,
/// or `perf_event_paranoid` ≤ 1); without them the figures built on it are missing, not guessed.
final class SyncCounter {
    private let child: ChildProcess
    private let output: String
    private let began: Double // not money: seconds

    /// Starts counting the syscalls of `pid`, writing perf's CSV to `output`.
    init(pid: pid_t, output: String) throws(BenchError) {
        guard let perf = ["/usr/bin/perf", "/usr/local/bin/perf"].first(where: FileManager.default.isExecutableFile) else {
            throw .other("no perf to count the daemon's fdatasync calls (apt-get install linux-perf)")
        }
        self.output = output
        (child, _, _) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
            try ChildProcess.spawn(perf, ["stat", "-x", ",", "-o", output, "-e",
                                          "syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync", "-p", String(pid)],
                                   environment: ProcessInfo.processInfo.environment, stdout: .discard, stderr: .discard)
        }
        began = MonotonicClock.now()
        // perf attaches to the threads after it starts: the load's warm-up runs meanwhile.
        MonotonicClock.sleep(0.1)
    }

    /// Stops counting.
    /// - Returns: the syncs per second while it counted.
    func stop() throws(BenchError) -> Double { // not money: a measurement
        let elapsed = MonotonicClock.now() - began
        child.send(SIGINT)
        let exit = child.wait(timeout: 10)
        guard let text = try? String(contentsOfFile: output, encoding: .utf8) else {
            throw .other("perf stat wrote nothing (\(exit.description))")
        }
        var syncs = 0.0 // not money: a count
        var counted = false
        for line in text.split(separator: "\n") where line.contains("syscalls:sys_enter_") {
            guard let count = Double(line.split(separator: ",", omittingEmptySubsequences: false).first ?? "") else {
                throw .other("perf stat could not count: \(line.prefix(160))")
            }
            syncs += count
            counted = true
        }
        guard counted, elapsed > 0 else { throw .other("perf stat counted nothing: \(BenchError.excerpt(Array(text.utf8)))") }
        return syncs / elapsed
    }
}
