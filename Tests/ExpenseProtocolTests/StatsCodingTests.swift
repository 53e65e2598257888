import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// `stats` (Protocol.md §5.10): the exact JSON of params and result, decoded back to the same values.
@Suite struct StatsCodingTests {
    static let documentedResult = #"{"byCategory":true,"cursor":2,"from":"2026-10-01","period":"month","periods":[{"current":false,"end":"2026-10-31","label":"2026-10","partial":false,"start":"2026-10-01"},{"current":true,"end":"2026-11-30","label":"2026-11","partial":false,"start":"2026-11-01"}],"tables":[{"average":625,"categories":["food"],"columnAverages":[625],"columnTotals":[1250],"count":1,"currency":"USD","rows":[{"amounts":[0],"count":0,"total":0},{"amounts":[1250],"count":1,"total":1250}],"total":1250}],"to":"2026-11-30","today":"2026-11-30"}"#

    @Test func resultIsTheDocumentedOneAndRoundTrips() throws {
        let day = { (text: String) in try #require(CalendarDay(text)) }
        let query = try StatisticsQuery(period: .month, from: day("2026-10-01"), to: day("2026-11-30"), byCategory: true,
                                        today: day("2026-11-30"))
        var builder = PeriodStatisticsBuilder(query: query)
        try builder.add(amount: 1250, count: 1, currency: .usd, category: "food", date: day("2026-11-30"))
        let result = StatsResult(statistics: try builder.build(), cursor: 2)
        #expect(String(decoding: result.jsonBytes, as: UTF8.self) == Self.documentedResult)
        let parsed = try JSONParser.parse(Array(Self.documentedResult.utf8))
        #expect(try StatsResult(json: parsed) == result)
        let request = StatsRequest(query: query)
        #expect(String(decoding: request.paramsBytes, as: UTF8.self)
                == #"{"byCategory":true,"from":"2026-10-01","period":"month","to":"2026-11-30","today":"2026-11-30"}"#)
        #expect(try StatsRequest(params: try JSONParser.parse(request.paramsBytes)) == request)
        var tagged = query
        tagged.tags = ["trip-2026", "work"]
        let filtered = StatsRequest(query: tagged)
        #expect(StatsRequest(tags: ["work", "trip-2026"]).tags == tagged.tags, "a request's tags are sorted by their bytes")
        #expect(String(decoding: filtered.paramsBytes, as: UTF8.self)
                == #"{"byCategory":true,"from":"2026-10-01","period":"month","tags":["trip-2026","work"],"to":"2026-11-30","today":"2026-11-30"}"#,
                "sorted by their bytes")
        #expect(try StatsRequest(params: try JSONParser.parse(filtered.paramsBytes)).query(defaultToday: day("2026-11-30")) == tagged)
    }
}
