import Foundation
import Synchronization

/// A relay (``LineRelay``) between an `expense` process and a real `expensed` that holds the first request line
/// of one method (say `pull`) until the test releases it: a sync that stays in progress exactly as long as the
/// test needs, with no sleeps. Every other line goes through at once, both ways.
final class StallingProxy: Sendable {
    /// The address to give the client (`127.0.0.1:PORT`).
    var address: String { relay.address }
    private let relay: LineRelay
    /// Signalled once the held line arrived (the sync is now waiting for the daemon).
    private let reached: DispatchSemaphore
    private let released: DispatchSemaphore

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), holding the first line whose
    /// method is `method`.
    init(upstream: String, holding method: String) throws {
        let reached = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        let armed = Mutex(true)
        let marker = Array(#""method":"\#(method)""#.utf8)
        relay = try LineRelay(upstream: upstream) { line in
            if LineRelay.contains(line, marker), armed.withLock({ let was = $0; $0 = false; return was }) {
                reached.signal()
                released.wait()
            }
            return line
        }
        (self.reached, self.released) = (reached, released)
    }

    /// Stops accepting (connections already relayed end with their client).
    func stop() {
        release()
        relay.stop()
    }

    /// Waits until the held line arrived; `false` after `timeout` seconds.
    func waitUntilHeld(timeout: Double = 60) -> Bool { // not money: seconds
        reached.wait(timeout: .now() + timeout) == .success
    }

    /// Lets the held line (and everything after it) through.
    func release() { released.signal() }
}
