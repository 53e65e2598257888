import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// `history` of budgets, rules and settings (Protocol.md §5.8, §10): the `kinds` param and the entries' `kind`
/// and data values, exact JSON both ways.
@Suite struct HistoryKindsCodingTests {
    static let id = UUID(uuidString: "92dace8d-3c4e-5746-90fb-6934d3824a70") ?? UUID()

    @Test func kindsParamRoundTripsAndIgnoresUnknownNames() throws {
        try checkParams(HistoryRequest(since: 2, limit: 500, kinds: [.setting, .budget]),
                        json: #"{"kinds":["budget","setting"],"limit":500,"since":2}"#)
        #expect(try HistoryRequest(params: try JSONParser.parse(Array(#"{"kinds":["budget","expense","future"]}"#.utf8))).kinds == [.budget])
        #expect(paramsError(HistoryRequest.self, #"{"kinds":"budget"}"#)?.field == "kinds")
        #expect(HistoryRequest().wants(.expense) && !HistoryRequest().wants(.budget))
    }

    @Test func dataEntriesRoundTripExactly() throws {
        var edit = HistoryEntry(seq: 3, id: Self.id, version: 2, action: .edit,
                                changes: HistoryEntry.changes(from: ["rollover": .text("none"), "until": .text("2026-12-31")],
                                                              to: ["rollover": .text("full"), "every": .integer(2)]),
                                who: "laptop", clientId: Self.id, time: 5)
        edit.kind = .recurring
        try checkResult(HistoryResult(entries: [edit], cursor: 3, more: false, horizon: 0), json: """
            {"cursor":3,"entries":[{"action":"edit","changes":{"every":{"from":null,"to":2},"rollover":{"from":"none","to":"full"},\
            "until":{"from":"2026-12-31","to":null}},"clientId":"92dace8d-3c4e-5746-90fb-6934d3824a70",\
            "id":"92dace8d-3c4e-5746-90fb-6934d3824a70","kind":"recurring","seq":3,"time":5,"version":2,"who":"laptop"}],\
            "horizon":0,"more":false}
            """)
    }
}
