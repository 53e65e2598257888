import Foundation
import Testing
@testable import expense_bench

/// The targets are data (thresholds.json): the file of this checkout reads, names only figures that exist, and a run
/// is judged against it the way `--check` exits.
@Suite struct ThresholdsTests {
    @Test func theCheckedInFileReadsAndNamesOnlyFiguresThatExist() throws {
        let thresholds = try Thresholds(contentsOf: Thresholds.defaultPath)
        #expect(thresholds.unknownKeys(figures: Figure.all).isEmpty)
        #expect(thresholds.targets["single_push_p99_ms"] == [.atMost(5)])
        // The third round's targets (docs/performance.md): ratios to peers doing equal work, and the TLS figures per
        // ping and per connection.
        #expect(thresholds.targets["ping_rps"] == [.ratio(factor: 0.95, of: "redis_ping_rps", atMost: false, anchor: 61_143, floor: nil)])
        #expect(thresholds.targets["tls_idle_kib_per_connection"] == [.atMost(16)])
        #expect(thresholds.targets["tls_added_us_per_ping"] == [.atMost(3)])
        #expect(thresholds.targets["push_mutations_per_s"] == [
            .ratio(factor: 3, of: "pg_push_work_mutations_per_s", atMost: false, anchor: nil, floor: nil),
            .ratio(factor: 0.6, of: "sqlite_ceiling_mutations_per_s", atMost: false, anchor: nil, floor: nil),
        ])
        #expect(thresholds.targets["single_push_per_s"]?.last == .ratio(factor: 0.75, of: "redis_aof_set_rps", atMost: false, anchor: 41_093, floor: nil))
        #expect(thresholds.targets["single_push_per_s"]?.first == .ratio(factor: 1, of: "redis_push_work_rps", atMost: false, anchor: nil, floor: nil))
        #expect(thresholds.targets["pg_store_push_mutations_per_s"]?.contains(
            .ratio(factor: 0.7, of: "pg_push_work_one_conn_mutations_per_s", atMost: false, anchor: nil, floor: nil)) == true)
    }

    @Test func aFigureWithSeveralTargetsMustMeetEachAndFailsOncePerTargetMissed() throws {
        let thresholds = try Thresholds(json: Array("""
            {"targets": {"single_push_per_s": [{"atLeastTimes": 1, "of": "redis_push_work_rps"},
                                               {"atLeastTimes": 0.75, "of": "redis_aof_set_rps"}]}}
            """.utf8))
        var report = BenchReport(thresholds: thresholds)
        report.record("single_push_per_s", 60_000)
        report.record("redis_push_work_rps", 50_000)  // 1.2×: met
        report.record("redis_aof_set_rps", 100_000)   // 0.6×: missed
        let failures = report.failures(figures: Figure.all)
        #expect(failures == ["single_push_per_s = 60000 push/s misses ≥ 0.75× redis_aof_set_rps (vs redis_aof_set_rps, this run)"])
        let table = report.table(figures: Figure.all.filter { ["single_push_per_s", "redis_push_work_rps", "redis_aof_set_rps"].contains($0.key) })
        #expect(table.contains("≥ 1.0× redis_push_work_rps") && table.contains("1.20×") && table.contains("0.60×"), "\(table)")
        let json = report.json(figures: Figure.all)
        #expect(json.contains(#""single_push_per_s":1.200"#) && json.contains(#""single_push_per_s/redis_aof_set_rps":0.600"#), "\(json)")
        #expect(json.contains(#""pass":{"single_push_per_s":false}"#), "\(json)")

        report.record("redis_aof_set_rps", 70_000)
        #expect(report.failures(figures: Figure.all).isEmpty)
    }

    @Test func aRatioToAFigureThatDoesNotExistIsNamed() throws {
        let thresholds = try Thresholds(json: Array(#"{"targets": {"ping_rps": [{"atLeastTimes": 1, "of": "redis_pnig_rps"}]}}"#.utf8))
        #expect(thresholds.unknownKeys(figures: Figure.all) == ["redis_pnig_rps"])
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
                     #"{"limits": {}}"#, #"{"targets": {"ping_rps": []}}"#, #"{"targets": {"ping_rps": [{"atMost": 1}, 7]}}"#] {
            #expect(throws: Thresholds.Invalid.self, "\(text)") { try Thresholds(json: Array(text.utf8)) }
        }
    }
}
