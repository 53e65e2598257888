@testable import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// ``LedgerBinding`` as a transcript of `hello`s, no sockets (Protocol.md §5.7).
@Suite struct LedgerBindingStateTests {
    private static let ledgerId = UUID(), firstEpoch = UUID(), secondEpoch = UUID()

    private static func hello(cursor: Int64, id: UUID? = ledgerId, epoch: UUID = firstEpoch, epochCursor: Int64 = 0) -> HelloResult {
        HelloResult(protocolVersion: 1, server: "s", ledger: "default", currency: .usd, cursor: cursor, lastMutationId: 0,
                    identity: id.map { LedgerIdentity(ledgerId: $0, epoch: epoch, epochCursor: epochCursor) })
    }

    @Test func bindsToTheIdAcceptsAnyAddressOfItAndHealsOnANewEpochOrARewoundHead() throws {
        var binding = try LedgerBinding().greeted(Self.hello(cursor: 5), at: "127.0.0.1:1/default")
        #expect(binding.identity == .ledger(id: Self.ledgerId, epoch: Self.firstEpoch) && binding.cursor == 0)
        binding.cursor = 5
        binding = try binding.greeted(Self.hello(cursor: 9), at: "localhost:2/default")
        #expect(binding.lastAddress == "localhost:2/default" && binding.healPoint == nil)
        #expect(throws: SyncError.self) { try binding.greeted(Self.hello(cursor: 9, id: UUID()), at: "localhost:2/default") }

        // A restore: a new epoch that began at 3.
        binding = try binding.greeted(Self.hello(cursor: 4, epoch: Self.secondEpoch, epochCursor: 3), at: "localhost:2/default")
        #expect(binding.healPoint == 3 && binding.identity == .ledger(id: Self.ledgerId, epoch: Self.secondEpoch))
        // An interrupted heal stays due; a later lower point wins.
        binding = try binding.greeted(Self.hello(cursor: 2, epoch: Self.secondEpoch), at: "localhost:2/default")
        #expect(binding.healPoint == 2)
        binding.healed()
        #expect(binding.healPoint == nil)

        // The same epoch but a head below the cursor (an old file copied back): heal from that head.
        binding.cursor = 8
        binding = try binding.greeted(Self.hello(cursor: 6, epoch: Self.secondEpoch), at: "localhost:2/default")
        #expect(binding.healPoint == 6)
    }

    @Test func aCacheBoundByAddressMovesToTheIdAtThatAddressOnly() throws {
        let legacy = LedgerBinding(identity: .address("127.0.0.1:1/default"), lastAddress: "127.0.0.1:1/default", cursor: 4)
        #expect(throws: SyncError.otherLedger(synced: "127.0.0.1:1/default", asked: "localhost:1/default")) {
            try legacy.greeted(Self.hello(cursor: 4), at: "localhost:1/default")
        }
        let moved = try legacy.greeted(Self.hello(cursor: 4), at: "127.0.0.1:1/default")
        #expect(moved.identity == .ledger(id: Self.ledgerId, epoch: Self.firstEpoch) && moved.healPoint == nil)
        #expect(try moved.greeted(Self.hello(cursor: 4), at: "localhost:1/default").lastAddress == "localhost:1/default")
    }

    @Test func aDaemonWithoutIdsIsComparedByAddress() throws {
        let bound = try LedgerBinding().greeted(Self.hello(cursor: 0, id: nil), at: "a:1/x")
        #expect(bound.identity == .address("a:1/x"))
        #expect(throws: SyncError.self) { try bound.greeted(Self.hello(cursor: 0, id: nil), at: "b:1/x") }
        let byId = try LedgerBinding().greeted(Self.hello(cursor: 0), at: "a:1/x")
        #expect(try byId.greeted(Self.hello(cursor: 0, id: nil), at: "a:1/x").lastAddress == "a:1/x")
        #expect(throws: SyncError.self) { try byId.greeted(Self.hello(cursor: 0, id: nil), at: "b:1/x") }
    }
}
