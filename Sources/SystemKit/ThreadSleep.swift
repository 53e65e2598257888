#if canImport(Glibc)
import Glibc
#endif

/// The one plain sleep of the calling thread: `nanosleep(2)`, resumed for the time left after a signal
/// interrupts it, so it never ends early. For a sleep that a stop signal must cut short, ``StopSignal/pause(_:)``.
/// Never call it on the cooperative pool: it blocks the thread.
public func sleepThread(for duration: Duration) {
    guard duration > .zero else { return }
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
}
