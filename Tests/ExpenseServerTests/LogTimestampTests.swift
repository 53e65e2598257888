import Foundation
import Testing
@testable import ExpenseServer

/// The log's own time stamps against Foundation's formatter, which they replace on the per-push path.
@Suite struct LogTimestampTests {
    @Test func equalsFoundationsISO8601AtManyInstants() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var instants = [0, 59, 60, 86_399, 86_400, 951_782_400, 1_709_164_800, 1_764_633_599, 4_102_444_799]
        for _ in 0..<500 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Int(state >> 33) % 4_102_444_800)  // 1970 … 2099
        }
        for seconds in instants {
            let expected = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601)
            #expect(LogTimestamp.text(secondsSince1970: seconds) == expected, "at \(seconds)")
        }
    }

    @Test func nowIsTheCurrentSecond() {
        let before = Int(Date().timeIntervalSince1970)
        let text = LogTimestamp.now()
        let after = Int(Date().timeIntervalSince1970)
        #expect([before, after].map { LogTimestamp.text(secondsSince1970: $0) }.contains(text), "\(text)")
    }
}
