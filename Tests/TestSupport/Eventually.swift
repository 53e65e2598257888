#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` every `pause` until it holds or `timeout` has passed, for what a test can only observe from
/// outside (a child process, the kernel's socket table); never as synchronisation with code the test drives.
/// Blocks its thread: call it from a test thread of its own (`onOwnThread`) or a synchronous test.
/// - Returns: whether it held.
public func eventually(timeout: Duration = .seconds(20), pause: Duration = .milliseconds(50),
                       _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    while true {
        if try condition() { return true }
        if clock.now >= end { return false }
        let (seconds, attoseconds) = pause.components
        usleep(useconds_t(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
}
