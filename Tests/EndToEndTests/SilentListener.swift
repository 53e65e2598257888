import Foundation
import TestSupport
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
        let (fd, port) = try LoopbackListener.open()
        listener = fd
        self.address = "127.0.0.1:\(port)"
    }

    deinit { close(listener) }
}
