import Foundation
import ProcessSpawn
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

/// The test process's sockets, read from `/proc`: which descriptor holds a given TCP connection.
enum SocketTable {
    /// The descriptor (and its socket's inode, as `/proc/self/fd` names it) of this process's TCP socket on
    /// 127.0.0.1 with the given local and remote ports.
    static func descriptor(localPort: UInt16, remotePort: UInt16) -> (Int32, String)? {
        // Read to its end (Foundation's file reading stops early on a /proc table longer than a page).
        guard let table = ChildProcess.procFile(getpid(), "net/tcp") else { return nil }
        let inodes = table.split(separator: "\n").dropFirst().compactMap { row -> String? in
            let fields = row.split(separator: " ")
            guard fields.count > 9, port(fields[1]) == localPort, port(fields[2]) == remotePort else { return nil }
            return "socket:[\(fields[9])]"
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in descriptors {
            guard let fd = Int32(name), let link = inode(of: fd), inodes.contains(link) else { continue }
            return (fd, link)
        }
        return nil
    }

    /// What `/proc/self/fd/FD` points at (`socket:[INODE]` for a socket), or `nil` once it is closed.
    static func inode(of fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    /// The local port of a connected socket, or its peer's.
    static func port(of fd: Int32, peer: Bool = false) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Checks `condition` every millisecond for at most `seconds`; whether it became true.
    static func waits(seconds: Double, until condition: () -> Bool) -> Bool { // not money: seconds
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    /// The port of an `ADDRESS:PORT` field of `/proc/net/tcp` (hexadecimal).
    private static func port(_ field: Substring) -> UInt16? {
        field.split(separator: ":").last.flatMap { UInt16($0, radix: 16) }
    }
}
