import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// `balances` through a real daemon and ledger (Protocol.md §5.11): the method table, the dispatcher and the
/// ledger's thread, and its role rule (a read: a viewer may call it).
@Suite struct BalancesServerTests {
    @Test("a viewer asks for balances and gets the daemon's figures from the records an owner pushed; a bad currency is −32602")
    func viewerReadsTheDaemonsBalances() async throws {
        try await withLedgerServer { harness in
            let viewerToken = try LedgerDirectory.addToken(dataDirectory: harness.directory, ledger: "default", name: "phone", role: .viewer)
            let ann = UUID(), bob = UUID()
            let split = "equal:" + [ann, bob].map(UUIDText.lowercased).sorted().joined(separator: ",")
            let owner = try harness.greetedClient()
            try owner.send(RawClient.request(id: 2, method: "push", params: """
                {"mutations":[\
                {"mutationId":1,"type":"put","kind":"member","id":"\(ann)","baseVersion":0,"fields":{"name":"ann","status":"active"}},\
                {"mutationId":2,"type":"put","kind":"member","id":"\(bob)","baseVersion":0,"fields":{"name":"bob","status":"active"}},\
                {"mutationId":3,"type":"put","id":"\(UUID())","baseVersion":0,"fields":{"amount":1001,"category":"food","date":"2026-11-01",\
                "paidBy":"\(UUIDText.lowercased(ann))","split":"\(split)"}}]}
                """))
            #expect(try owner.receiveResult()?.result.objectValue?["cursor"]?.int64Value == 3)

            let viewer = try RawClient(harness.server)
            try viewer.send(LedgerServerHarness.hello(token: viewerToken))
            #expect(try viewer.receiveResult()?.result.objectValue?["role"] == .string("viewer"))
            try viewer.send(RawClient.request(id: 2, method: "balances"))
            let answer = try BalancesResult(json: try #require(try viewer.receiveResult()).result)
            #expect(answer.cursor == 3 && answer.balances.count == 2 && answer.balances.allSatisfy { $0.currency == .usd })
            let annRow = try #require(answer.balances.first { $0.balance.member == ann }).balance
            let bobRow = try #require(answer.balances.first { $0.balance.member == bob }).balance
            // 10.01 shared by two: one of them owes the odd cent, as the core's split decides.
            #expect(annRow.paid == 1001 && bobRow.paid == 0 && annRow.share + bobRow.share == 1001 && annRow.net == -bobRow.net)
            #expect(Set([annRow.share, bobRow.share]) == [500, 501])
            try viewer.send(RawClient.request(id: 3, method: "balances", params: #"{"currency":"eur"}"#))
            let refused = try #require(try viewer.receiveError())
            #expect(refused.id == RequestID(3) && refused.error.code == RPCError.invalidParamsCode && refused.error.field == "currency")
        }
    }
}
