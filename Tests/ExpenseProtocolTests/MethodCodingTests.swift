import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

@Suite struct MethodCodingTests {
    @Test func hello() throws {
        try checkParams(HelloRequest(protocolVersion: 1, ledger: "default", token: "s3cret", clientId: Fixtures.id, clientName: "laptop"),
                        json: #"{"clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","clientName":"laptop","ledger":"default","protocol":1,"token":"s3cret"}"#)
        try checkParams(HelloRequest(protocolVersion: 1, ledger: "l", token: "t", clientId: Fixtures.id, clientName: nil),
                        json: #"{"clientId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","ledger":"l","protocol":1,"token":"t"}"#)
        try checkResult(HelloResult(protocolVersion: 1, server: "expensed 0.1.0", ledger: "default", currency: .usd, cursor: 12, lastMutationId: 3,
                                    maxLine: 4096),
                        json: #"{"currency":"USD","cursor":12,"lastMutationId":3,"ledger":"default","maxLine":4096,"protocol":1,"server":"expensed 0.1.0"}"#)
    }

    @Test("a hello result without maxLine (an older daemon) means the protocol's default 1,048,576; a bad one is refused")
    func helloMaxLine() throws {
        let older = try JSONParser.parse(Array(#"{"currency":"USD","cursor":1,"lastMutationId":0,"ledger":"l","protocol":1,"server":"s"}"#.utf8))
        #expect(try HelloResult(json: older).maxLine == 1_048_576)
        for bad in [#""4096""#, "0", "-1", "1.5", "true"] {
            let text = #"{"currency":"USD","cursor":1,"lastMutationId":0,"ledger":"l","maxLine":"# + bad + #","protocol":1,"server":"s"}"#
            #expect(throws: ProtocolDecodingError.self, "\(bad)") { try HelloResult(json: try JSONParser.parse(Array(text.utf8))) }
        }
    }

    @Test("hello's result carries the ledger's identity when the daemon knows it")
    func helloIdentity() throws {
        let identity = LedgerIdentity(ledgerId: Fixtures.id, epoch: UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301")!, epochCursor: 7)
        try checkResult(HelloResult(protocolVersion: 1, server: "expensed 0.1.0", ledger: "default", currency: .usd, cursor: 12, lastMutationId: 3,
                                    identity: identity),
                        json: #"{"currency":"USD","cursor":12,"epoch":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","epochCursor":7,"lastMutationId":3,"#
                            + #""ledger":"default","ledgerId":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","maxLine":1048576,"protocol":1,"server":"expensed 0.1.0"}"#)
    }

    @Test func helloErrors() {
        let upper = #""clientId":"6F9619FF-8B86-D011-B42D-00CF4FC964FF""#
        #expect(paramsError(HelloRequest.self, #"{"protocol":1,"ledger":"l","token":"t",\#(upper)}"#) == nil)
        #expect(paramsError(HelloRequest.self, #"{"protocol":2}"#)?.code == -32003)
        #expect(paramsError(HelloRequest.self, #"{"protocol":1.0,"ledger":"l","token":"t",\#(upper)}"#)?.code == -32003)
        #expect(paramsError(HelloRequest.self, #"{"protocol":"1","ledger":"l","token":"t",\#(upper)}"#)?.field == "protocol")
        #expect(paramsError(HelloRequest.self, nil)?.field == "protocol")
        #expect(paramsError(HelloRequest.self, #"{"protocol":1,"ledger":"l","token":"t","clientId":"nope"}"#)?.field == "clientId")
        #expect(paramsError(HelloRequest.self, #"{"protocol":1,"token":"t",\#(upper)}"#)?.field == "ledger")
        #expect(paramsError(HelloRequest.self, #"{"protocol":1,"ledger":"l","token":5,\#(upper)}"#)?.field == "token")
        #expect(paramsError(HelloRequest.self, #"[1]"#)?.code == RPCError.invalidParamsCode)
    }

    @Test func pull() throws {
        try checkParams(PullRequest(since: 5, limit: 10_000), json: #"{"limit":10000,"since":5}"#)
        try checkResult(PullResult(changes: [try Fixtures.record()], cursor: 17, more: false),
                        json: #"{"cursor":17,"more":false,"changes":[\#(Fixtures.recordJSON)]}"#, sorted: false)
        try checkResult(PullResult(changes: [], cursor: 0, more: false), json: #"{"cursor":0,"more":false,"changes":[]}"#, sorted: false)
        #expect(try PullRequest(params: nil) == PullRequest(since: 0, limit: 1000))
        #expect(try PullRequest(params: ["unknown": true]) == PullRequest())
        // `expenses` is sent only when false, so a protocol-1 pull's line is unchanged.
        try checkParams(PullRequest(since: 5, limit: 10, expenses: false), json: #"{"expenses":false,"limit":10,"since":5}"#)
        #expect(try PullRequest(params: ["expenses": false]) == PullRequest(expenses: false))
        #expect(try PullRequest(params: ["expenses": .null]) == PullRequest())
        #expect(paramsError(PullRequest.self, #"{"expenses":"no"}"#)?.field == "expenses")
        // `snapshot` is sent only by the later pages of a pull from 0.
        try checkParams(PullRequest(since: 1000, limit: 1000, snapshot: 4711), json: #"{"limit":1000,"since":1000,"snapshot":4711}"#)
        #expect(paramsError(PullRequest.self, #"{"since":5,"snapshot":-1}"#)?.field == "snapshot")
    }

    @Test(arguments: [
        (#"{"limit":0}"#, "invalid_params", "limit"), (#"{"limit":10001}"#, "invalid_params", "limit"),
        (#"{"limit":"5"}"#, "invalid_params", "limit"), (#"{"limit":1.5}"#, "invalid_params", "limit"),
        (#"{"since":-1}"#, "invalid_cursor", "since"), (#"{"since":"0"}"#, "invalid_params", "since"),
        (#"{"since":1e2}"#, "invalid_params", "since"),
    ])
    func pullErrors(json: String, reason: String, field: String) {
        let error = paramsError(PullRequest.self, json)
        #expect(error?.code == RPCError.invalidParamsCode)
        #expect(error?.reason == reason)
        #expect(error?.field == field)
    }

    @Test func summary() throws {
        let query = SummaryQuery(from: CalendarDay("2026-01-01"), to: CalendarDay("2026-12-31"), category: "food", groupBy: .month)
        try checkParams(SummaryRequest(query: query), json: #"{"category":"food","from":"2026-01-01","groupBy":"month","to":"2026-12-31"}"#)
        try checkParams(SummaryRequest(), json: #"{"groupBy":"none"}"#)
        try checkParams(SummaryRequest(query: SummaryQuery(tags: ["work", "Trip"])), json: #"{"groupBy":"none","tags":["Trip","work"]}"#)
        #expect(try SummaryRequest(params: nil) == SummaryRequest())
        let result = SummaryResult(summary: Summary(
            totals: [CurrencyTotal(currency: .usd, amount: 3750, count: 3)],
            groups: [GroupTotal(key: "2026-11", currency: .usd, amount: 3750, count: 3)]), cursor: 9)
        try checkResult(result, json: #"{"cursor":9,"groups":[{"amount":3750,"count":3,"currency":"USD","key":"2026-11"}],"totals":[{"amount":3750,"count":3,"currency":"USD"}]}"#)
    }

    @Test(arguments: [
        (#"{"from":"2026-02-30"}"#, "from"), (#"{"to":20261130}"#, "to"), (#"{"from":"1899-12-31"}"#, "from"),
        (#"{"category":5}"#, "category"), (#"{"groupBy":"year"}"#, "groupBy"), (#"{"groupBy":null,"from":"x"}"#, "from"),
        (#"{"tags":"work"}"#, "tags"), (#"{"tags":["a b"]}"#, "tags"), (#"{"tags":[1]}"#, "tags"),
    ])
    func summaryErrors(json: String, field: String) {
        let error = paramsError(SummaryRequest.self, json)
        #expect(error?.code == RPCError.invalidParamsCode)
        #expect(error?.field == field)
    }

    @Test func pingAndWatch() throws {
        try checkParams(PingRequest(), json: "{}")
        try checkParams(WatchRequest(), json: "{}")
        try checkResult(CursorResult(cursor: 4), json: #"{"cursor":4}"#)
        #expect(paramsError(PingRequest.self, nil) == nil)
        #expect(paramsError(PingRequest.self, #"{"x":1}"#) == nil)
        #expect(paramsError(PingRequest.self, "[]")?.code == RPCError.invalidParamsCode)
    }

    /// The list the daemon's method table is checked against names every request type, `stats`, `history` and
    /// `balances` included (it once stopped at `watch`, while the daemon answered both of the next).
    @Test func protocolMethodsNameEveryRequestType() {
        #expect(ProtocolMethods.all == [HelloRequest.method, PushRequest.method, PullRequest.method, SummaryRequest.method,
                                        PingRequest.method, WatchRequest.method, StatsRequest.method, HistoryRequest.method,
                                        BalancesRequest.method])
        #expect(ProtocolMethods.all == ["hello", "push", "pull", "summary", "ping", "watch", "stats", "history", "balances"])
    }

    @Test func recordDecodingValidates() throws {
        #expect(try Record(json: JSONParser.parse(Array(Fixtures.recordJSON.utf8))) == Fixtures.record())
        let upper = Fixtures.recordJSON.replacingOccurrences(of: Fixtures.idText, with: Fixtures.idText.uppercased())
        #expect(try Record(json: JSONParser.parse(Array(upper.utf8))) == Fixtures.record())
        let badAmount = Fixtures.recordJSON.replacingOccurrences(of: "1250", with: "0")
        #expect(throws: ProtocolDecodingError.self) { try Record(json: JSONParser.parse(Array(badAmount.utf8))) }
        let badVersion = Fixtures.recordJSON.replacingOccurrences(of: #""version":2"#, with: #""version":0"#)
        #expect(throws: ProtocolDecodingError.self) { try Record(json: JSONParser.parse(Array(badVersion.utf8))) }
    }

    @Test func textIsKeptExactly() throws {
        let note = "e\u{301} tab\there\nnew line \"quoted\" 😀"
        let record = Record(expense: try Fixtures.expense(note: note), version: 1, seq: 1, deleted: true)
        var writer = JSONWriter()
        record.write(to: &writer)
        #expect(!writer.bytes.contains(0x0A))
        #expect(try Record(json: JSONParser.parse(writer.bytes)) == record)
    }
}
