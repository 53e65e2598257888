import Glibc
import SystemKit

/// Wall-clock-independent time for latencies: `clock_gettime(CLOCK_MONOTONIC)`.
///
/// Seconds as `Double` are fine here: these are durations, never money.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (boot).
    public static func now() -> Double { // not money: a measurement
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000 // not money: a measurement
    }

    /// Sleeps for `seconds` (used only to wait for a peer or child to settle, never as synchronisation).
    public static func sleep(_ seconds: Double) {
        sleepThread(for: .nanoseconds(Int64(seconds * 1_000_000_000))) // not money: a measurement
    }
}
