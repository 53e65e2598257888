import CStorageCeiling
import Foundation
import PostgreSQL
import SQLite
import Testing
@testable import expense_bench

/// The equal-work peers do the work they claim (docs/performance.md, "Method": peers doing equal work): checked on what they send
/// or write, never on how fast.
@Suite struct EqualWorkPeersTests {
    @Test func theRawSQLiteCeilingWritesAPushsRowsInGroupsOfWholePushes() throws {
        let directory = NSTemporaryDirectory() + "ceiling-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/ceiling.sqlite"
        var result = storage_ceiling_result()
        #expect(storage_ceiling_run(path, 1000, 2, 0, 0.3, &result) == 0)
        let error = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        #expect(error.isEmpty)
        #expect(result.mutations == result.commits * 1000)

        let connection = try SQLiteConnection(path: path, mode: .create)
        func count(_ sql: String) throws -> Int64 { try connection.prepare(sql).first { $0.int64(0) } ?? -1 }
        let records = try count("SELECT count(*) FROM records")
        #expect(records > 0 && records % 1000 == 0, "whole groups of 1,000")
        // A create's history entry is its row's creation (the store's migration 14), its optional fields one empty text.
        #expect(try count("SELECT count(*) FROM history") == 0)
        #expect(try count("SELECT count(*) FROM records WHERE created_seq = 0 AND created_by = 'default' AND length(created_client) = 16 AND created_time > 0 AND extras = ''") == records)
        // One run per client per group: two per 1,000 mutations, none deleted before a client passed 10,000.
        let groups = records / 1000
        let runs = try count("SELECT count(*) FROM outcome_runs")
        #expect(runs <= groups * 2 && runs >= min(groups * 2, 16 * 20))
        #expect(try count("SELECT max(run) FROM outcome_runs") == records)
        #expect(try count("SELECT count(*) FROM clients") == min(16, groups * 2))
        #expect(try connection.prepare("PRAGMA journal_mode").first { $0.text(0) } == "wal")
    }

    @Test func theCeilingTakesTheObservedGroupInWholePushes() {
        #expect(StorageScenario.ceilingGroup(observed: nil) == (500, 1))
        #expect(StorageScenario.ceilingGroup(observed: 180) == (500, 1))
        #expect(StorageScenario.ceilingGroup(observed: 2736) == (2500, 5))  // the nearest whole pushes
        #expect(StorageScenario.ceilingGroup(observed: 2800) == (3000, 6))
        #expect(StorageScenario.ceilingGroup(observed: 50_000) == (8000, 16))
    }

    @Test func aRedisCallCarriesOneNewRecordsWorkInRESP() {
        #expect(RedisPushWork.command(["GET", "k"].map { Array($0.utf8) }) == Array("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n".utf8))
        var source = RedisPushWork.Source(connection: 3, seed: 42)
        let first = source.next(), second = source.next()
        guard let first, let second else {
            Issue.record("a Redis source never runs out of calls")
            return
        }
        #expect(first.lines == 1 && first.operations == 1 && first.expectedMatches == 1)
        let text = String(decoding: first.bytes, as: UTF8.self)
        #expect(text.hasPrefix("*18\r\n$5\r\nFCALL\r\n$9\r\npush_work\r\n$1\r\n5\r\n$43\r\nrecord:"), "\(text)")
        #expect(text.contains("\r\n$16\r\noutcome:client-3\r\n") && text.contains(#"{"category":{"to":"#))
        // A fresh id per call.
        let id = { (round: Round) in String(decoding: round.bytes, as: UTF8.self).split(separator: "\r\n")[8] }
        #expect(id(first) != id(second))
        #expect(RedisPushWork.source.contains("redis.register_function('push_work'"))
        for command in ["HGET", "HSET", "XADD", "HINCRBY", "SET"] { #expect(RedisPushWork.source.contains("'\(command)'")) }
    }

    @Test func aPostgreSQLPushWritesEveryTableOurStoreWritesInOneRoundTrip() {
        var seq: Int64 = 0
        let statements = PostgresPushWork.transaction(index: 0, rows: 500, seq: &seq)
        #expect(seq == 500)
        #expect(statements.first?.sql == "BEGIN" && statements.last?.sql == "COMMIT")
        let sql = statements.map(\.sql).joined(separator: "\n")
        for table in ["FOR UPDATE", "FROM monthly_totals", "FROM clients", "FROM records", "FROM data_records",
                      "INSERT INTO records", "INSERT INTO clients", "INSERT INTO outcome_runs", "INSERT INTO daily_totals",
                      "INSERT INTO monthly_totals", "UPDATE ledgers", "created_client"] {
            #expect(sql.contains(table), "\(table)")
        }
        // A create's history entry is its row's creation (the store's migration 10): no history row.
        #expect(!sql.contains("INSERT INTO history"))
        #expect(!sql.contains("DELETE FROM outcome_runs"), "nothing has left the window yet")
        seq = 20_000
        #expect(PostgresPushWork.transaction(index: 0, rows: 500, seq: &seq).contains { $0.sql.contains("DELETE FROM outcome_runs") })
    }

    @Test func coresAreEachThreadsTimeOnACPUBusiestFirst() {
        let cores = SchedStat.cores(from: [1: 1_000_000_000, 2: 0, 3: 500], to: [1: 1_500_000_000, 2: 2_000_000_000, 4: 250_000_000],
                                    seconds: 2)
        #expect(cores == [1.0, 0.25, 0.125])
        #expect(SchedStat.threads(of: getpid()).isEmpty == false)
    }
}
