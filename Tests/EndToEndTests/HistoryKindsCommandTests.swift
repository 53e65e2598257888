import Foundation
import TestSupport
import Testing

/// `expense log` shows budget changes with who and what (Protocol.md §5.8, §10), from a real `expensed`.
@Suite struct HistoryKindsCommandTests {
    @Test func logShowsABudgetsChangesWithWhoAndFields() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            try ann.succeed(["budget", "set", "food", "300", "--start", "2026-01-01"])
            try ann.succeed(["sync"])
            try ann.succeed(["budget", "set", "food", "300", "--rollover", "full"])
            try ann.succeed(["sync"])
            let log = try ann.succeed(["log"])
            let lines = log.split(separator: "\n").filter { $0.contains(" budget ") }
            #expect(lines.count == 2, "\(log)")
            #expect(lines.first?.contains("'default'  create budget") == true && lines.first?.contains("category \"food\"") == true, "\(log)")
            #expect(lines.last?.contains("edit budget") == true && lines.last?.contains("rollover \"none\" → \"full\"") == true, "\(log)")
            let json = try ann.succeed(["log", "--json"])
            #expect(json.contains(#""kind":"budget""#), "\(json)")
        }
    }
}
