import Foundation
import SQLite
import TestSupport
import Testing

/// `expensed serve --compact-after N` (Protocol.md §5.9): the daemon compacts every ledger at start, before it
/// serves the first request, then daily (the daily cadence is ``CompactionScheduleTests`` in ExpenseServerTests).
@Suite(.serialized) struct CompactAfterCommandTests {
    @Test func serveCompactAfterCompactsAtStartBeforeTheFirstRequest() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            var daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            let gone = try ann.succeed(["add", "5", "gone", "--date", "2026-01-01"]).trimmingCharacters(in: .whitespacesAndNewlines)
            try ann.succeed(["sync"])
            try ann.succeed(["delete", String(gone.prefix(8))])
            try ann.succeed(["add", "6", "kept"])
            try ann.succeed(["sync"])
            #expect(daemon.stop().status == 0)

            // Those changes were made ten days ago (the daemon's clock is not ours to set, its file is).
            let file = try SQLiteConnection(path: data + "/default.sqlite", mode: .readWrite)
            try file.execute("UPDATE history SET time = time - 10 * 86400")
            // A creation's time is on its record's row (migration 14).
            try file.execute("UPDATE records SET created_time = created_time - 10 * 86400")
            withExtendedLifetime(file) {}

            daemon = try DaemonProcess.serve(data: data, scratch: ann.directory, ["--compact-after", "1"])
            defer { _ = daemon.stop() }
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            try ann.succeed(["add", "7", "new"])
            try ann.succeed(["sync"])
            // The first request already sees the compacted ledger: the tombstone and the entries below the head
            // are gone (the head's entry stays, §5.9), the new change is kept.
            let log = try ann.succeed(["log", "--json"])
            #expect(!log.contains("\"gone\"") && log.contains("\"kept\"") && log.contains("\"new\""), "\(log)\n\(daemon.stderr)")
            #expect(daemon.stderr.contains("compacted ledger 'default': 1 tombstones purged and 2 history entries removed, older than 1 days; purge horizon 2"),
                    "\(daemon.stderr)")
        }
    }
}
