import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// The daemon writes summary totals above 2^53 as exact integers (Protocol.md section 5.4), up to `Int64.max`.
@Suite struct SummaryTotalsServerTests {
    @Test func aTotalOfInt64MaxIsWrittenExactlyAndReadBackExactly() async throws {
        try await withLedgerServer { harness in
            let client = try harness.greetedClient()
            // 1024 × (2^53 − 1) + 1023 = 2^63 − 1.
            let amounts = Array(repeating: ExpenseRules.maximumAmount, count: 1024) + [1023]
            var mutationId = 0
            for (number, chunk) in stride(from: 0, to: amounts.count, by: PushRequest.maximumMutations).enumerated() {
                let mutations = amounts[chunk..<min(chunk + PushRequest.maximumMutations, amounts.count)].map { amount in
                    mutationId += 1
                    return #"{"mutationId":\#(mutationId),"type":"put","id":"\#(UUID())","baseVersion":0,"fields":{"amount":\#(amount),"category":"big","date":"2026-11-30"}}"#
                }
                try client.send(RawClient.request(id: 10 + number, method: "push", params: #"{"mutations":[\#(mutations.joined(separator: ","))]}"#))
                _ = try #require(try client.receiveResult())
            }
            try client.send(RawClient.request(id: 99, method: "summary", params: #"{"groupBy":"category"}"#))
            let line = try #require(try client.connection.readLine(timeout: .seconds(20)))
            let text = String(decoding: line, as: UTF8.self)
            #expect(text.contains(#""totals":[{"amount":9223372036854775807,"count":1025,"currency":"USD"}]"#), "\(text)")
            #expect(text.contains(#"{"amount":9223372036854775807,"count":1025,"currency":"USD","key":"big"}"#), "\(text)")
            let result = try RPCClientCodec.parse(line).decodeResult(as: SummaryResult.self)
            #expect(result.summary.totals == [CurrencyTotal(currency: .usd, amount: .max, count: 1025)])
        }
    }
}
