import ExpenseCore
import ExpenseProtocol
@testable import ExpenseServer
import ExpenseTransport
import Foundation
import Synchronization
import Testing
import TestSupport

/// A `hello` naming a ledger created after the daemon started opens it off the loop thread (docs/modules.md: the
/// loop thread never blocks), and is answered once it is open. Opening a ledger asserts it is not on a loop thread
/// (`LoopThread.assertNotCurrent`, debug builds, as tests are built): an open on the loop stops this test.
@Suite struct AppearedLedgerTests {
    @Test func aLedgerAddedAfterStartIsOpenedOffTheLoopThread() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), data = temporary.file("data")
        defer { temporary.remove() }
        let directory = try LedgerDirectory(dataDirectory: data, creating: .defaultLedger(.usd))
        var configuration = ServerConfiguration()
        configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
        let server = try Server(configuration: configuration, ledgers: directory, log: ServerLog { _ in })
        server.start()
        // `expensed ledger add` beside the running daemon: another directory object on the same files.
        let other = try LedgerDirectory(dataDirectory: data, creating: .nothing)
        let token = try other.addLedger(name: "later", currency: .usd)
        await other.close()
        #expect(directory.needsOpening("later"))
        let greeted = try await onOwnThread { () throws -> Bool in
            let client = try RawClient(server)
            try client.send(RawClient.hello(token: token, ledger: "later"))
            guard case .response(_, .success)? = try client.receive() else { return false }
            return true
        }
        server.stop()
        await server.waitUntilStopped()
        #expect(greeted)
        #expect(!directory.needsOpening("later"))
        await directory.close()
    }
}
