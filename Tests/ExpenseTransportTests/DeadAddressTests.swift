#if canImport(Glibc)
import Glibc
#endif
import ExpenseTransport
import TestSupport
import Testing

/// ``LoopbackListener/deadAddress()``, the address the tests use for "a daemon that is not there": it refuses at
/// once and stays refused while the test process runs, yet a daemon asked to listen there can.
@Suite struct DeadAddressTests {
    @Test func aDeadAddressRefusesUntilAServerIsStartedOnItExplicitly() throws {
        let address = try SocketAddress(parsing: try LoopbackListener.deadAddress())
        let refused = TransportError.connectFailed(address: address.description, errno: ECONNREFUSED)
        #expect(throws: refused) { _ = try LineConnection(connectingTo: address, timeout: .seconds(5)) }
        // The port is held: a bind without SO_REUSEADDR fails. Holding it with SO_REUSEADDR is what makes the kernel
        // skip it for binds to port 0 (a port that was only closed is free for any of them).
        #expect(Self.plainBind(port: address.port) == EADDRINUSE)
        let server = try ListeningSocket(address: address)
        defer { server.close() }
        _ = try LineConnection(connectingTo: address, timeout: .seconds(5))
    }

    /// Binds a new socket to 127.0.0.1:`port` without `SO_REUSEADDR`; the `errno` of a failure, 0 on success.
    private static func plainBind(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0 ? 0 : errno
    }
}
