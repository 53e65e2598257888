import Foundation
import Testing
@testable import expense_bench

/// The targets are data (thresholds.json): the file of this checkout reads, names only figures that exist, and a run
/// is judged against it the way `--check` exits.
@Suite struct ThresholdsTests {
    @Test func theCheckedInFileReadsAndNamesOnlyFiguresThatExist() throws {
        let thresholds = try Thresholds(contentsOf: Thresholds.defaultPath)
        #expect(thresholds.unknownKeys(figures: Figure.all).isEmpty)
        #expect(thresholds.targets["single_push_p99_ms"] == .atMost(5))
        #expect(thresholds.targets["ping_rps"] == .ratio(factor: 1.2, of: "redis_ping_rps", atMost: false, anchor: 61_143, floor: nil))
        #expect(thresholds.targets["tls_idle_5000_rss_mib"] == .ratio(factor: 2, of: "idle_5000_rss_mib", atMost: true, anchor: nil, floor: nil))
    }

    @Test func aMeasuredFigureMissingItsTargetIsAFailureAndAnUnmeasuredOneIsNot() throws {
        let thresholds = try Thresholds(json: Array("""
            {"targets": {"single_push_p99_ms": {"atMost": 5}, "ping_rps": {"atLeastTimes": 1.2, "of": "redis_ping_rps", "anchor": 1000},
                         "first_sync_1m_s": {"atMost": 2}}}
            """.utf8))
        var report = BenchReport(thresholds: thresholds)
        report.record("single_push_p99_ms", 6.5)
        report.record("ping_rps", 1100)  // no Redis this run: judged against the anchor, 1.1× < 1.2×
        report.record("first_sync_1m_s", nil, missing: "not run")
        let failures = report.failures(figures: Figure.all)
        #expect(failures.count == 2, "\(failures)")
        #expect(failures.contains { $0.hasPrefix("single_push_p99_ms = 6.50 ms misses ≤ 5") })
        #expect(failures.contains { $0.hasPrefix("ping_rps = 1100 req/s misses ≥ 1.2× redis_ping_rps") && $0.contains("anchor") })

        report.record("redis_ping_rps", 900)  // measured in this run: 1100 / 900 ≥ 1.2
        #expect(report.failures(figures: Figure.all).count == 1)
    }

    @Test func aMalformedTargetIsRefusedNamingItsKey() {
        for text in [#"{"targets": {"ping_rps": {"atMost": -1}}}"#, #"{"targets": {"ping_rps": {"atLeastTimes": 2}}}"#,
                     #"{"targets": {"ping_rps": {"atMost": 5, "colour": 1}}}"#, #"{"targets": {"ping_rps": {"of": "x", "atLeastTimes": 1, "atMostTimes": 2}}}"#,
                     #"{"limits": {}}"#] {
            #expect(throws: Thresholds.Invalid.self, "\(text)") { try Thresholds(json: Array(text.utf8)) }
        }
    }
}
