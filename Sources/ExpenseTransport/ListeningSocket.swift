#if canImport(Glibc)
import Glibc
import CEpoll
#endif

/// A non-blocking TCP socket bound and listening, owned until ``close()``.
public final class ListeningSocket: Sendable {
    /// The file descriptor (non-blocking, close-on-exec).
    public let fileDescriptor: Int32
    /// The address actually bound, with the real port when port 0 was asked for.
    public let boundAddress: SocketAddress

    /// Binds and listens on `address` (port 0: a free port).
    /// - Parameter backlog: the accept queue length (the kernel caps it at `somaxconn`).
    /// - Throws: ``TransportError`` when the address does not resolve or bind/listen fail.
    public init(address: SocketAddress, backlog: Int32 = 4096) throws(TransportError) {
        var lastError = TransportError.resolveFailed(host: address.host, reason: "no address")
        for candidate in try address.resolve(passive: true) {
            let fd = Glibc.socket(candidate.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { lastError = .lastError("socket"); continue }
            Socket.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            let bound = candidate.withSockAddr { Glibc.bind(fd, $0, $1) }
            guard bound == 0 else {
                lastError = .lastError("bind \(address)")
                Glibc.close(fd)
                continue
            }
            guard Glibc.listen(fd, backlog) == 0 else {
                lastError = .lastError("listen")
                Glibc.close(fd)
                continue
            }
            do {
                try Socket.setNonBlocking(fd, true)
            } catch {
                Glibc.close(fd)
                throw error
            }
            fileDescriptor = fd
            boundAddress = ResolvedAddress.of(socket: fd, peer: false)?.socketAddress ?? address
            return
        }
        throw lastError
    }

    /// Closes the socket: no further connections are accepted.
    public func close() {
        Glibc.close(fileDescriptor)
    }
}
