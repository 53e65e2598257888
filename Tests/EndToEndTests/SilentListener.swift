import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A loopback listener on port 0 that never accepts: the kernel completes the TCP handshake (the client's
/// `connect` succeeds) and nothing is ever read or answered — a daemon that accepts but hangs.
final class SilentListener: Sendable {
    /// `127.0.0.1:PORT`.
    let address: String
    private let listener: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, 16) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.address = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    deinit { close(listener) }
}
