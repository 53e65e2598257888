import TestSupport
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
@testable import ExpenseServer

/// Overload: connections beyond the limit are refused cleanly; bursts leave no descriptor behind.
@Suite(.serialized) struct ReliabilityLoadTests {
    /// Descriptors of this process that are TCP sockets on the server's own port (its listener and the
    /// connections it accepted). Counting every descriptor of the process would also count the files and
    /// sockets of the tests running beside this one in the same process.
    private static func serverSockets(port: UInt16) -> Int {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: Foundation's String(contentsOfFile:) stops after the first page of a /proc file.
            guard let handle = FileHandle(forReadingAtPath: table),
                  let text = String(data: handle.readDataToEndOfFile(), encoding: .utf8) else { continue }
            defer { try? handle.close() }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                guard columns.count > 9, let local = columns[1].split(separator: ":").last,
                      UInt16(local, radix: 16) == port else { continue }
                inodes.insert(String(columns[9]))
            }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.count { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                  target.hasPrefix("socket:[") else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }

    @Test func connectionsBeyondTheLimitAreBusyAndLeakNothing() async throws {
        try await withLedgerServer({ $0.maximumConnections = 50 }) { harness in
            // One hello first: SQLite opens the ledger's -wal and -shm files on its first read.
            try harness.greetedClient().connection.close()
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { harness.server.connectionCount == 0 })
            let port = harness.server.address.port
            let baseline = Self.serverSockets(port: port)
            #expect(baseline >= 1, "the listener itself is counted")
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
            #expect(Self.serverSockets(port: port) >= baseline + 50, "the accepted connections are counted")
            for client in held { client.connection.close() }
            held.removeAll()
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { harness.server.connectionCount == 0 })
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { Self.serverSockets(port: port) <= baseline },
                    "\(Self.serverSockets(port: port)) server sockets open, \(baseline) before")
            #expect(try harness.stillServes())
        }
    }

    @Test func aBurstOfAThousandConnectsIsSurvived() async throws {
        try await withLedgerServer { harness in
            try harness.greetedClient().connection.close()
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { harness.server.connectionCount == 0 })
            let port = harness.server.address.port
            let baseline = Self.serverSockets(port: port)
            #expect(baseline >= 1, "the listener itself is counted")
            let start = ContinuousClock.now
            for index in 0..<1000 {
                let client = try RawClient(harness.server)
                if index % 2 == 0 { try client.send(LedgerServerHarness.hello(token: harness.token)) }  // half say hello
                client.connection.close()
            }
            let elapsed = ContinuousClock.now - start
            #expect(try harness.stillServes())
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { harness.server.connectionCount == 0 })
            #expect(eventually(timeout: .seconds(10), pause: .milliseconds(5)) { Self.serverSockets(port: port) <= baseline })
            #expect(elapsed < .seconds(30), "1,000 connects took \(elapsed)")
        }
    }
}
