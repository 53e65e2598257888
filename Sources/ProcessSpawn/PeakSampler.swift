import Foundation
import Glibc
import Synchronization
import SystemKit

/// Samples a running child's own peak resident memory, `VmHWM` of `/proc/PID/status`, on a thread of its own
/// until stopped.
///
/// Why not `ru_maxrss`: Linux starts a new process's high-water mark at its parent's resident size (fork copies
/// it, and exec keeps the larger of the old and the new image's), so `wait4` reports at least the spawning
/// process's memory: a 300 MiB parent sees 300 MiB for `/bin/true`. `VmHWM` belongs to the image exec made, so
/// it is the child's own. The last reading before the exit is kept: a peak in the final sampling interval would
/// be missed, the price of reading it from outside; a first sync peaks in its index build, seconds before it exits.
final class PeakSampler: Sendable {
    private let pid: pid_t
    /// (stopped, the largest VmHWM read, in KiB)
    private let state = Mutex<(stopped: Bool, peakKiB: Int?)>((false, nil))

    /// Reads `pid`'s peak once now, then every `interval` on a thread of its own.
    init(pid: pid_t, interval: Duration) {
        self.pid = pid
        _ = sample()
        let thread = Thread { [self] in
            while !sample() { sleepThread(for: interval) }
        }
        thread.start()
    }

    /// Takes one reading; returns whether sampling was stopped.
    private func sample() -> Bool {
        let reading = Self.highWaterKiB(pid)
        return state.withLock { state in
            if let reading { state.peakKiB = max(state.peakKiB ?? 0, reading) }
            return state.stopped
        }
    }

    /// Stops sampling. Call it before the child is reaped, so its pid is never another process's.
    /// - Returns: the largest `VmHWM` read, in KiB; `nil` when none was (no `/proc`, or the child already gone).
    func stop() -> Int? {
        state.withLock { state in
            state.stopped = true
            return state.peakKiB
        }
    }

    /// `VmHWM` of `/proc/PID/status`, in KiB; `nil` once the process has exited (a zombie has no memory).
    static func highWaterKiB(_ pid: pid_t) -> Int? {
        ChildProcess.statusField("VmHWM:", of: pid)
    }
}
