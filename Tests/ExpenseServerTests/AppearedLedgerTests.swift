import ExpenseCore
import ExpenseProtocol
@testable import ExpenseServer
import ExpenseTransport
import Foundation
import Synchronization
import Testing
import TestSupport

/// A `hello` naming a ledger created after the daemon started opens it off the loop thread (docs/modules.md: the
/// loop thread never blocks), and is answered once it is open.
@Suite struct AppearedLedgerTests {
    /// The real directory, noting for each `authenticatedLedger` call whether it ran on a loop thread.
    final class RecordingLedgers: LedgerProvider {
        let directory: LedgerDirectory
        let onLoopThread = Mutex<[Bool]>([])
        init(_ directory: LedgerDirectory) { self.directory = directory }

        func authenticatedLedger(name: String, token: String) -> (any LedgerService)? {
            onLoopThread.withLock { $0.append(LoopThread.isCurrent) }
            return directory.authenticatedLedger(name: name, token: token)
        }

        func opensWithoutBlocking(name: String) -> Bool { directory.opensWithoutBlocking(name: name) }
    }

    @Test func aLedgerAddedAfterStartIsOpenedOffTheLoopThread() async throws {
        let data = try makeTemporaryDirectory() + "/data"
        let directory = try LedgerDirectory(dataDirectory: data, creating: .defaultLedger(.usd))
        let ledgers = RecordingLedgers(directory)
        var configuration = ServerConfiguration()
        configuration.listen = SocketAddress(host: "127.0.0.1", port: 0)
        let server = try Server(configuration: configuration, ledgers: ledgers, log: ServerLog { _ in })
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
        await directory.close()
        #expect(greeted)
        #expect(!directory.needsOpening("later"))
        #expect(ledgers.onLoopThread.withLock { $0 } == [false])
    }
}
