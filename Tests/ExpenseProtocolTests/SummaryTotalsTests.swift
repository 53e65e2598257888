import ExpenseCore
import Testing
@testable import ExpenseProtocol

/// Summary totals are sums of amounts of at most 2^53−1 each and may reach `Int64.max` (Protocol.md section 5.4):
/// they are written and read as exact 64-bit integers, never through a `Double`.
@Suite struct SummaryTotalsTests {
    /// Odd values above 2^53 have no exact `Double`: a reader through a double would change them.
    @Test(arguments: [Int64(1) << 53 + 1, 3 * ExpenseRules.maximumAmount, Int64.max])
    func aTotalAbove2To53IsWrittenAndReadExactly(total: Int64) throws {
        #expect(Int64(exactly: Double(total)) != total, "\(total) must be one a double cannot hold")
        let result = SummaryResult(summary: Summary(totals: [CurrencyTotal(currency: .usd, amount: total, count: 3)],
                                                    groups: [GroupTotal(key: "food", currency: .usd, amount: total, count: 3)]),
                                   cursor: 3)
        try checkResult(result, json: #"{"cursor":3,"groups":[{"amount":\#(total),"count":3,"currency":"USD","key":"food"}],"totals":[{"amount":\#(total),"count":3,"currency":"USD"}]}"#)
        // The client's path: a response line through the client codec.
        let line = #"{"jsonrpc":"2.0","id":4,"result":{"cursor":3,"groups":[],"totals":[{"amount":\#(total),"count":3,"currency":"USD"}]}}"#
        let decoded = try RPCClientCodec.parse(Array(line.utf8)).decodeResult(as: SummaryResult.self)
        #expect(decoded.summary.totals.first?.amount == total)
    }
}
