import Foundation
import Testing
import TestSupport
@testable import ExpenseTransport

/// The daemon's stop signal can come between binding and ``LineServer/start()``, and more than once: a server
/// stopped before it started closes its listening socket once and never serves. A second close of that number
/// would close whatever the process opened since (a ledger's database file, another connection).
struct LineServerLifecycleTests {
    @Test func aServerStoppedBeforeItStartedClosesItsSocketOnceAndNeverServes() async throws {
        let server = try LineServer(address: SocketAddress(host: "127.0.0.1", port: 0), configuration: LineServerConfiguration(),
                                    log: { _, _ in }, makeSession: { EchoSession(connection: $0, closedCounter: EventCounter()) })
        let port = server.address.port
        let (listening, _) = try #require(SocketTable.descriptor(localPort: port, remotePort: 0))
        server.stop()
        await server.waitUntilStopped()
        #expect(SocketTable.inode(of: listening) == nil || SocketTable.descriptor(localPort: port, remotePort: 0) == nil,
                "the listening socket is closed")

        // A socket of this test takes the number the listener had (the lowest free one, unless another test's
        // thread took it first: then there is nothing to check).
        var planted: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &planted) == 0)
        if planted[1] == listening { planted.swapAt(0, 1) }
        if planted[0] != listening {
            let taken = fcntl(planted[0], F_DUPFD_CLOEXEC, listening)
            close(planted[0])
            planted[0] = taken
        }
        defer { planted.filter { $0 >= 0 }.forEach { close($0) } }

        server.stop()
        if planted[0] == listening {
            #expect(fcntl(planted[0], F_GETFD) != -1, "a second stop closed the socket that took the listener's number")
        }
        server.start()
        await server.waitUntilStopped()
        #expect(SocketTable.descriptor(localPort: port, remotePort: 0) == nil, "a start after the stop serves nothing")
        if planted[0] == listening {
            #expect(fcntl(planted[0], F_GETFD) != -1, "a start after the stop used the listener's old number")
        }
    }
}
