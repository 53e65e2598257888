import CEpoll
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one stop-signal mechanism of both programs: SIGINT and SIGTERM as a request to stop, instead of killing
/// the process wherever it is (`expensed serve` finishes in-flight requests; `expense sync --watch` finishes its
/// step and closes its connection).
///
/// The handler (installed synchronously with `sigaction`, in CEpoll) only writes the signal's number into a pipe,
/// which is async-signal-safe; from the moment ``install()`` returns no stop signal is lost or kills the process.
/// ``wait()`` blocks on the pipe (the daemon's stop thread), ``pause(_:)`` sleeps but wakes at once on a signal,
/// and ``requested`` looks without blocking (the watch loop, between two steps).
public enum StopSignal {
    /// The pipe's reading end (-1 before ``install()``) and the signal read from it (0 while none).
    private static let state = Mutex<(pipe: Int32, received: Int32)>((-1, 0))

    /// Installs the handler for SIGINT and SIGTERM (once; later calls do nothing).
    /// - Throws: ``SystemCallError`` when the pipe or the handler cannot be set up.
    public static func install() throws(SystemCallError) {
        let failure: Int32? = state.withLock { state in
            guard state.pipe < 0 else { return nil }
            let pipe = cepoll_stop_signal_pipe()
            guard pipe >= 0 else { return errno }
            state.pipe = pipe
            return nil
        }
        if let failure { throw SystemCallError(call: "sigaction", errno: failure) }
    }

    /// The signal that asked to stop, if one did (without blocking).
    public static var requested: Int32? { waitForSignal(milliseconds: 0) }

    /// Blocks until a stop signal arrives.
    /// - Returns: its number (`SIGINT` or `SIGTERM`).
    public static func wait() -> Int32 {
        while true {
            if let number = waitForSignal(milliseconds: -1) { return number }
        }
    }

    /// Blocks the calling thread for `duration`, or less when a stop is requested meanwhile.
    public static func pause(_ duration: Duration) {
        let clock = ContinuousClock()
        let end = clock.now + duration
        while requested == nil {
            let left = clock.now.duration(to: end)
            guard left > .zero else { return }
            let (seconds, attoseconds) = left.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
            _ = waitForSignal(milliseconds: Int32(clamping: milliseconds))
        }
    }

    /// Waits up to `milliseconds` (-1: forever) for the pipe to hold a signal's byte, and reads it.
    private static func waitForSignal(milliseconds: Int32) -> Int32? {
        let (pipe, received) = state.withLock { ($0.pipe, $0.received) }
        if received != 0 { return received }
        guard pipe >= 0 else { return nil }
        var entry = pollfd(fd: pipe, events: Int16(POLLIN), revents: 0)
        guard let ready = try? syscall(where: "poll", { poll(&entry, 1, milliseconds) }), ready > 0 else { return nil }
        return state.withLock { state -> Int32? in
            if state.received != 0 { return state.received }
            var byte: UInt8 = 0
            guard (try? syscall(where: "read", { read(pipe, &byte, 1) })) == 1 else { return nil }
            state.received = Int32(byte)
            return state.received
        }
    }
}
