import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The relays of the end-to-end tests share the test process with every other test's sockets, and a descriptor
/// number that is closed goes to the next socket opened on any thread. A relay that shut down or read a number
/// after closing it ended another test's connection (a PostgreSQL test once failed in CI with "server closed the
/// connection unexpectedly" while connecting).
struct LineRelayTests {
    @Test func aConnectionsDescriptorsStayOpenUntilBothItsDirectionsEnded() async throws {
        try await onOwnThread {
            let upstream = try LoopbackListener.open()
            defer { close(upstream.fd) }
            let relay = try LineRelay(upstream: "127.0.0.1:\(upstream.port)") { $0 }
            defer { relay.stop() }
            let relayPort = try #require(relay.address.split(separator: ":").last.flatMap { UInt16($0) })
            let client = try #require(LoopbackListener.connect(port: relayPort))
            let server = accept(upstream.fd, nil, nil)
            try #require(server >= 0)
            defer { close(server) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            // The relay's own ends of the two connections, and the sockets they are.
            let (relayed, inode) = try #require(SocketTable.descriptor(localPort: relayPort, remotePort: SocketTable.port(of: client)))
            let (upstreamSide, upstreamInode) = try #require(
                SocketTable.descriptor(localPort: SocketTable.port(of: server, peer: true), remotePort: upstream.port))

            // The client goes: the relay passes the end of its requests on; the daemon's direction still runs.
            close(client)
            var byte: UInt8 = 0
            #expect(recv(server, &byte, 1, 0) == 0, "the daemon's side reads the end of the requests")
            let closedEarly = SocketTable.waits(seconds: 0.2) { SocketTable.inode(of: relayed) != inode }
            #expect(!closedEarly, "the relay closed the client's descriptor while the daemon's direction still ran")
            // What that costs: a socket given the closed number is ended when the other direction ends.
            var planted: [Int32] = [-1, -1]
            if closedEarly, socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &planted) == 0 {
                if planted[1] == relayed { planted.swapAt(0, 1) }
                if planted[0] != relayed {  // the lowest free number ≥ the closed one: that one, unless taken since
                    let taken = fcntl(planted[0], F_DUPFD_CLOEXEC, relayed)
                    close(planted[0])
                    planted[0] = taken
                }
            }
            defer { planted.filter { $0 >= 0 }.forEach { close($0) } }

            // The daemon's side ends too: the relay then lets go of both descriptors.
            shutdown(server, Int32(SHUT_RDWR))
            #expect(SocketTable.waits(seconds: 10) {
                SocketTable.inode(of: relayed) != inode && SocketTable.inode(of: upstreamSide) != upstreamInode
            }, "both descriptors are closed once both directions ended")
            if planted[0] == relayed {
                var flags = fcntl(planted[1], F_GETFL)
                flags |= O_NONBLOCK
                _ = fcntl(planted[1], F_SETFL, flags)
                let read = recv(planted[1], &byte, 1, 0)
                #expect(read != 0, "the relay shut down a socket that took the number it had closed")
            }
        }
    }
}
