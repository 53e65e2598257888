import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// `history` (Protocol.md §5.8): exact JSON both ways, params validated on the request type, pages cut by bytes.
@Suite struct HistoryCodingTests {
    static let id = UUID(uuidString: "6f9619ff-8b86-d011-b42d-00cf4fc964ff") ?? UUID()
    static let client = UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301") ?? UUID()

    static func edit(seq: Int64, note: String = "team lunch") -> HistoryEntry {
        HistoryEntry(seq: seq, id: id, version: seq, action: .edit,
                     changes: [HistoryEntry.Change(field: "note", from: .text("lunch"), to: .text(note))],
                     who: "laptop", clientId: client, time: 1_764_590_460)
    }

    @Test func resultRoundTripsExactly() throws {
        let create = HistoryEntry(seq: 1, id: Self.id, version: 1, action: .create,
                                  changes: HistoryEntry.changes(from: nil, to: try Fixtures.expense()), who: nil,
                                  clientId: Self.client, time: 0)
        try checkResult(HistoryResult(entries: [create, Self.edit(seq: 2)], cursor: 2, more: false, horizon: 0), json: """
            {"cursor":2,"entries":[{"action":"create","changes":{"category":{"to":"food"},"date":{"to":"2026-11-30"},\
            "money":{"to":{"amount":1250,"currency":"USD"}},"note":{"to":"lunch"}},"clientId":"3f2504e0-4f89-41d3-9a0c-0305e82c3301",\
            "id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","seq":1,"time":0,"version":1},{"action":"edit","changes":{"note":{"from":"lunch","to":"team lunch"}},\
            "clientId":"3f2504e0-4f89-41d3-9a0c-0305e82c3301","id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","seq":2,"time":1764590460,\
            "version":2,"who":"laptop"}],"horizon":0,"more":false}
            """)
    }

    @Test func paramsRoundTripAndAreValidated() throws {
        try checkParams(HistoryRequest(id: Self.id, since: 3, sinceTime: 10, limit: 7),
                        json: #"{"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","limit":7,"since":3,"sinceTime":10}"#)
        #expect(try HistoryRequest(params: nil) == HistoryRequest())
        #expect(paramsError(HistoryRequest.self, #"{"id":"nope"}"#)?.field == "id")
        #expect(paramsError(HistoryRequest.self, #"{"since":-1}"#)?.field == "since")
        #expect(paramsError(HistoryRequest.self, #"{"sinceTime":"yesterday"}"#)?.field == "sinceTime")
        #expect(paramsError(HistoryRequest.self, #"{"limit":0}"#)?.field == "limit")
        #expect(paramsError(HistoryRequest.self, #"{"limit":1001}"#)?.field == "limit")
    }

    @Test(arguments: [300, 600, 2000, 1_048_576])
    func pagesAreCutToTheLineLimitAndAlwaysAdvance(limit: Int) throws {
        let entries = (1...20).map { Self.edit(seq: Int64($0), note: String(repeating: "n", count: 100)) }
        let line = HistoryResult(entries: entries, cursor: 20, more: false, horizon: 0).responseLine(id: RequestID(1), maximumLineLength: limit)
        let page = try HistoryResult(json: try #require(try JSONParser.parse(Array(line.dropLast()))["result"]))
        #expect(!page.entries.isEmpty)
        #expect(line.count - 1 <= limit || page.entries.count == 1)
        #expect(page.more == (page.entries.count < 20))
        #expect(page.cursor == (page.more ? page.entries.last?.seq : 20))
    }
}
