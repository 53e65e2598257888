import CEpoll
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The way into the loop thread from anywhere else: a queue under a `Mutex`, and an `eventfd` that wakes
/// `epoll_wait`. The eventfd is written only when the queue goes from "nothing signalled" to "signalled",
/// so a burst of completions costs one wake-up.
final class LoopMailbox: Sendable {
    struct Message: Sendable {
        enum Kind: Sendable {
            /// The answer of the request in flight: the line the closure makes, on the loop thread.
            case complete(@Sendable () -> [UInt8], AfterReply)
            case send([UInt8])
            case close
        }
        var target: ConnectionID
        var kind: Kind
    }

    private struct State {
        var messages: [Message] = []
        var signalled = false
        var stopRequested = false
    }

    let eventFD: Int32
    private let state = Mutex(State())

    init() throws(TransportError) {
        let fd = cepoll_eventfd()
        guard fd >= 0 else { throw .lastError("eventfd") }
        eventFD = fd
    }

    deinit { Glibc.close(eventFD) }

    func post(_ message: Message) {
        let wake = state.withLock { state -> Bool in
            state.messages.append(message)
            defer { state.signalled = true }
            return !state.signalled
        }
        if wake { _ = cepoll_eventfd_signal(eventFD) }
    }

    func requestStop() {
        let wake = state.withLock { state -> Bool in
            state.stopRequested = true
            defer { state.signalled = true }
            return !state.signalled
        }
        if wake { _ = cepoll_eventfd_signal(eventFD) }
    }

    /// Takes every queued message (called by the loop after its eventfd fired, or opportunistically).
    func take() -> (messages: [Message], stop: Bool) {
        _ = cepoll_eventfd_drain(eventFD)
        return state.withLock { state in
            state.signalled = false
            defer { state.messages.removeAll(keepingCapacity: true) }
            return (state.messages, state.stopRequested)
        }
    }
}
