import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on 127.0.0.1 (port 0) with one accept thread, for the test servers and relays.
///
/// Its descriptor is closed exactly once, by the accept thread, after ``stop()`` shut it down (which makes the
/// blocked `accept` fail). The test process opens sockets on many threads at once, and a descriptor number that
/// is closed is handed to the next one: an `accept` or a `shutdown` on a number closed a moment before would act
/// on another test's socket (its PostgreSQL connection, say) and end it.
public final class AcceptingListener: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let descriptor: Int32
    private let state = Mutex<State>(.listening)

    private enum State { case listening, stopped, closed }

    /// Listens, and hands each accepted connection (close-on-exec) to `serve` on the accept thread; `serve` owns
    /// the descriptor and starts a thread of its own for anything that blocks.
    public init(serve: @escaping @Sendable (Int32) -> Void) throws {
        (descriptor, port) = try LoopbackListener.open()
        Thread { [self] in acceptLoop(serve) }.start()
    }

    /// `127.0.0.1:PORT`.
    public var address: String { "127.0.0.1:\(port)" }

    /// Stops accepting (connections already accepted are their owners' to end). Safe to call more than once.
    public func stop() {
        state.withLock { state in
            guard state == .listening else { return }
            state = .stopped
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop(_ serve: (Int32) -> Void) {
        while true {
            let client = accept(descriptor, nil, nil)
            if client >= 0 {
                // A daemon spawned meanwhile may inherit it for that moment: then the connection only ends later.
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                serve(client)
            } else if errno != EINTR && errno != ECONNABORTED {
                state.withLock { state in
                    state = .closed
                    close(descriptor)
                }
                return
            }
        }
    }
}

/// The two sockets of one relayed connection, the client's and the upstream's, shared by the two threads that
/// copy its two directions.
///
/// Either thread may shut a side down at any time; the descriptors are closed only when both threads have let go
/// of the pair (in `deinit`), so the thread still running can never shut down or read a number that was closed
/// and handed to another socket.
public final class RelayedConnection: Sendable {
    /// The accepted connection from the client.
    public let client: Int32
    /// The connection to the upstream server.
    public let upstream: Int32

    public init(client: Int32, upstream: Int32) {
        self.client = client
        self.upstream = upstream
    }

    /// Ends both sockets in both directions: each side reads end of stream and its writes fail.
    public func shutDown() {
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
    }

    /// Ends what is sent to `descriptor` (one of the pair's two): its peer reads end of stream after what it got.
    public func endSending(to descriptor: Int32) {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    deinit {
        close(client)
        close(upstream)
    }
}

extension LoopbackListener {
    /// A blocking, close-on-exec connection to 127.0.0.1:`port`, or `nil` when it is refused.
    public static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
