import TestSupport
import Foundation
import Testing

/// `expense history`, `log`, `undo` and `expensed compact` as processes against a real `expensed`.
@Suite(.serialized) struct HistoryCommandTests {
    @Test func historyLogUndoAndCompactThroughTheCommands() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let (daemon, data) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01", "--note", "lunch"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try ann.succeed(["sync"])
            try ann.succeed(["edit", String(id.prefix(8)), "--note", "team lunch"])
            try ann.succeed(["sync"])

            let shown = try ann.succeed(["history", String(id.prefix(8))])
            #expect(shown.contains("(from the daemon)") && shown.contains("create") && shown.contains("note 'lunch' → 'team lunch'"), "\(shown)")
            let json = try ann.succeed(["history", id, "--json"])
            #expect(json.hasPrefix("[{\"action\":\"create\"") && json.contains("\"action\":\"edit\""), "\(json)")
            let log = try ann.run(["log", "--by", "nobody"])
            #expect(log.status == 0 && log.stdout.isEmpty && log.stderr.contains("No changes"), "\(log)")

            // Undo this machine's last command (the edit), then sync: the daemon has the old note again.
            try ann.succeed(["undo", "--last"])
            try ann.succeed(["sync"])
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.contains("\"note\" : \"lunch\""), "\(listed)")
            let usage = try ann.run(["undo"])
            #expect(usage.status == 64, "\(usage)")

            // Delete, then compact while the daemon serves: the tombstone is gone, later syncs still work.
            try ann.succeed(["delete", String(id.prefix(8))])
            try ann.succeed(["add", "1", "x"])
            try ann.succeed(["sync"])
            let compacted = try ExpenseProcess.run(ExpenseProcess.locate("expensed"),
                                                   ["compact", "--ledger", "default", "--keep-days", "0", "--data", data],
                                                   environment: [:], scratch: ann.directory)
            #expect(compacted.status == 0 && compacted.stdout.hasPrefix("horizon "), "\(compacted)")
            try ann.succeed(["add", "2", "y"])
            #expect(try ann.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")

            // With the daemon gone, history says what the cache knows.
            _ = daemon.stop()
            let offline = try ann.run(["history", id], environment: ["EXPENSE_SYNC_ATTEMPTS": "1", "EXPENSE_CONNECT_TIMEOUT": "2"])
            #expect(offline.status == 0 && offline.stderr.contains("showing what this cache knows"), "\(offline)")
        }
    }
}
