import TestSupport
import Foundation
import Synchronization
import Testing
@testable import ExpenseTransport

/// `LineSession`'s three callbacks are documented "called on the loop thread" and the daemon's session asserts
/// it (`LoopThread.assertCurrent`); this proves the loop keeps that promise, so the assertion only ever stops a
/// caller that breaks it.
@Suite struct LoopThreadTests {
    /// Records, for each callback, whether it ran on a loop thread.
    final class Record: Sendable {
        let seen = Mutex<[String: Bool]>([:])
        let closed = EventCounter()
    }

    final class RecordingSession: LineSession {
        let record: Record
        init(_ record: Record) { self.record = record }
        func received(line: ArraySlice<UInt8>, appendingTo output: inout [UInt8]) -> LineDisposition {
            record.seen.withLock { $0["received"] = LoopThread.isCurrent }
            return .reply(Array("ok\n".utf8), .proceed)
        }
        func lineTooLong() -> [UInt8] {
            record.seen.withLock { $0["lineTooLong"] = LoopThread.isCurrent }
            return Array("too long\n".utf8)
        }
        func closed() {
            record.seen.withLock { $0["closed"] = LoopThread.isCurrent }
            record.closed.increment()
        }
    }

    @Test func everySessionCallbackRunsOnTheLoopThreadAndNothingElseCountsAsOne() async throws {
        let record = Record()
        var configuration = LineServerConfiguration()
        configuration.maximumLineLength = 64
        let server = try LineServer(address: SocketAddress(host: "127.0.0.1", port: 0), configuration: configuration,
                                    log: { _, _ in }, makeSession: { _ in RecordingSession(record) })
        server.start()
        try await onOwnThread {
            #expect(!LoopThread.isCurrent, "a test's own thread is not a loop thread")
            let client = try LineConnection(connectingTo: server.address)
            try client.writeLine("first")
            #expect(try client.readTextLine() == "ok")
            try client.write([UInt8](repeating: 0x61, count: 1024))
            #expect(try client.readTextLine() == "too long")
            #expect(record.closed.wait(for: 1))
        }
        server.stop()
        await server.waitUntilStopped()
        #expect(record.seen.withLock { $0 } == ["received": true, "lineTooLong": true, "closed": true])
    }
}
