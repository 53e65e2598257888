import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// Overload: connections beyond the limit are refused cleanly; bursts leave no descriptor behind.
@Suite(.serialized) struct ReliabilityLoadTests {
    /// Open file descriptors of this process.
    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Waits (up to 10 s) until `condition` holds; returns whether it did.
    private static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    @Test func connectionsBeyondTheLimitAreBusyAndLeakNothing() async throws {
        try await withLedgerServer({ $0.maximumConnections = 50 }) { harness in
            // One hello first: SQLite opens the ledger's -wal and -shm files on its first read.
            try harness.greetedClient().connection.close()
            #expect(Self.eventually { harness.server.connectionCount == 0 })
            let baseline = Self.openDescriptors()
            var held = try (0..<50).map { _ in try harness.greetedClient() }
            for _ in 0..<300 {
                let extra = try RawClient(harness.server)
                let answer = try #require(try extra.receiveError())
                #expect(answer.error.code == -32004)
                #expect(answer.error.reason == "busy")
                #expect(try extra.receive() == nil)
                extra.connection.close()
            }
            #expect(harness.server.connectionCount == 50)
            for client in held { client.connection.close() }
            held.removeAll()
            #expect(Self.eventually { harness.server.connectionCount == 0 })
            #expect(Self.eventually { Self.openDescriptors() <= baseline }, "\(Self.openDescriptors()) descriptors open, \(baseline) before")
            #expect(try harness.stillServes())
        }
    }

    @Test func aBurstOfAThousandConnectsIsSurvived() async throws {
        try await withLedgerServer { harness in
            try harness.greetedClient().connection.close()
            #expect(Self.eventually { harness.server.connectionCount == 0 })
            let baseline = Self.openDescriptors()
            let start = ContinuousClock.now
            for index in 0..<1000 {
                let client = try RawClient(harness.server)
                if index % 2 == 0 { try client.send(LedgerServerHarness.hello(token: harness.token)) }  // half say hello
                client.connection.close()
            }
            let elapsed = ContinuousClock.now - start
            #expect(try harness.stillServes())
            #expect(Self.eventually { harness.server.connectionCount == 0 })
            #expect(Self.eventually { Self.openDescriptors() <= baseline })
            #expect(elapsed < .seconds(30), "1,000 connects took \(elapsed)")
        }
    }
}
