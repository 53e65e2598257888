import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// `balances` (Protocol.md §5.11): the exact JSON of params and result, decoded back to the same values, and the
/// rows a client refuses.
@Suite struct BalancesCodingTests {
    /// The table's currency of `code` (a test of the coding, not of the table).
    private static func currency(_ code: String) -> Currency { Currency.all.first { $0.code == code } ?? .usd }

    static let ann = UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301") ?? UUID()
    static let bob = UUID(uuidString: "6f9619ff-8b86-d011-b42d-00cf4fc964ff") ?? UUID()

    /// The result of Protocol.md §5.11's transcript.
    static let documentedResult = #"{"balances":[{"currency":"EUR","member":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","net":-500,"paid":0,"share":500},"#
        + #"{"currency":"EUR","member":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","net":500,"paid":1000,"share":500},"#
        + #"{"currency":"USD","member":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","net":1000,"paid":3000,"share":2000},"#
        + #"{"currency":"USD","member":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","net":-1000,"paid":500,"share":1500}],"cursor":7}"#

    /// The transcript's records: ann paid 30.00 USD shared equally, bob 10.00 EUR shared equally, and bob paid ann
    /// back 5.00 USD. Given bob first, so the result's order is the one it is written in, not the entries'.
    static func balances() throws -> Balances {
        let eur = Self.currency("EUR")
        return try Balances([
            BalanceEntry(payer: bob, currency: eur, amount: 1000, shares: [.init(member: bob, amount: 500), .init(member: ann, amount: 500)]),
            BalanceEntry(payer: ann, currency: .usd, amount: 3000, shares: [.init(member: bob, amount: 1500), .init(member: ann, amount: 1500)]),
            .transfer(from: bob, to: ann, amount: 500, currency: .usd),
        ])
    }

    @Test("the documented result: sorted by currency code then member id, read back to the same rows")
    func resultRoundTrips() throws {
        try checkResult(BalancesResult(try Self.balances(), currency: nil, cursor: 7), json: Self.documentedResult)
        // The figures of Protocol.md's transcript are the core's over the records it describes.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("Protocol.md"), encoding: .utf8)
        #expect(document.contains(#""id":21,"result":"# + Self.documentedResult + "}"))
        try checkResult(BalancesResult(balances: [], cursor: 0), json: #"{"balances":[],"cursor":0}"#)
        // One currency: only its rows; a currency without shared expenses: none.
        let eur = Self.currency("EUR")
        #expect(BalancesResult(try Self.balances(), currency: eur, cursor: 7).balances.map(\.currency) == [eur, eur])
        #expect(BalancesResult(try Self.balances(), currency: Self.currency("JPY"), cursor: 7).balances.isEmpty)
    }

    @Test func params() throws {
        try checkParams(BalancesRequest(), json: "{}")
        try checkParams(BalancesRequest(currency: Self.currency("EUR")), json: #"{"currency":"EUR"}"#)
        #expect(try BalancesRequest(params: nil) == BalancesRequest())
        #expect(try BalancesRequest(params: ["currency": .null]) == BalancesRequest())
        #expect(try BalancesRequest(params: ["unknown": true]) == BalancesRequest())
    }

    @Test(arguments: [#"{"currency":"eur"}"#, #"{"currency":"ABC"}"#, #"{"currency":5}"#, #"{"currency":["EUR"]}"#])
    func paramsErrors(json: String) {
        let error = paramsError(BalancesRequest.self, json)
        #expect(error?.code == RPCError.invalidParamsCode && error?.reason == "invalid_params" && error?.field == "currency")
    }

    @Test("positional params are −32602 without a field")
    func positionalParams() {
        let error = paramsError(BalancesRequest.self, #"["EUR"]"#)
        #expect(error?.code == RPCError.invalidParamsCode && error?.field == nil)
    }

    @Test("a row whose net is not paid − share, or with a negative or missing sum, is refused, naming the member",
          arguments: [
            (#""net":-499,"paid":0,"share":500"#, "result.balances[0].net"),
            (#""net":-500,"paid":-1,"share":499"#, "result.balances[0].net"),
            (#""net":500,"paid":0,"share":-500"#, "result.balances[0].net"),
            (#""net":-500,"paid":0,"share":"500""#, "result.balances[0].share"),
            (#""net":-500,"paid":0"#, "result.balances[0].share"),
          ])
    func refusedSums(members: String, path: String) throws {
        let json = #"{"balances":[{"currency":"EUR","member":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","# + members + #"}],"cursor":7}"#
        do {
            let read = try BalancesResult(json: try JSONParser.parse(Array(json.utf8)))
            Issue.record("read \(read)")
        } catch let error as ProtocolDecodingError {
            switch error {
            case .invalidMember(let found, _), .missingMember(let found): #expect(found == path)
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test("a row with an unknown currency or a member that is no id is refused")
    func refusedNames() {
        let currency = #"{"balances":[{"currency":"ABC","member":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","net":0,"paid":0,"share":0}],"cursor":1}"#
        #expect(throws: ProtocolDecodingError.invalidMember(path: "result.balances[0].currency", detail: "unknown currency")) {
            try BalancesResult(json: try JSONParser.parse(Array(currency.utf8)))
        }
        let member = #"{"balances":[{"currency":"EUR","member":"ann","net":0,"paid":0,"share":0}],"cursor":1}"#
        #expect(throws: ProtocolDecodingError.invalidMember(path: "result.balances[0].member", detail: "expected a UUID")) {
            try BalancesResult(json: try JSONParser.parse(Array(member.utf8)))
        }
    }
}
