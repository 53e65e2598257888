import TestSupport
import Foundation
import Testing

/// Pushes fit the daemon's line (`hello`'s `maxLine`), a change that cannot fit is rejected alone (`too_large`,
/// exit 65), and a protocol failure has its own exit code: the real `expense` against a real `expensed`.
@Suite(.serialized) struct ExpenseSyncBoundsCommandTests {
    /// 300 characters, 900 bytes of UTF-8.
    static let japaneseNote = String(repeating: "日本語の", count: 75)

    @Test func thousandImportedLongNotesSyncUnderTheDefaultLineLimit() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            var csv = "date,amount,currency,category,note\n"
            for index in 1...1000 { csv += "2026-03-01,\(index).00,USD,import,\(Self.japaneseNote)\n" }
            let file = ann.directory + "/import.csv"
            try csv.write(toFile: file, atomically: true, encoding: .utf8)
            try ann.succeed(["import", file])
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            let synced = try ann.run(["sync"])
            #expect(synced.status == 0 && synced.stdout.hasPrefix("pushed 1000, "), "\(synced)")
            try bob.setRemote(toDefaultLedgerOf: daemon, data: data)
            let pulled = try bob.run(["sync"])
            #expect(pulled.status == 0 && pulled.stdout == "pushed 0, pulled 1000, conflicts 0\n", "\(pulled)")
        }
    }

    @Test func changeTooLargeForTheDaemonsLineIsRejectedAloneAndTheRestSyncs() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory, ["--max-line", "1024"])
            defer { _ = daemon.stop() }
            try ann.setRemote(toDefaultLedgerOf: daemon, data: data)
            try ann.succeed(["add", "1", "small", "--date", "2026-03-01"])
            let big = try ann.succeed(["add", "2", "big", "--date", "2026-03-01", "--note", Self.japaneseNote])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try ann.succeed(["add", "3", "small", "--date", "2026-03-01"])

            let synced = try ann.run(["sync"])
            #expect(synced.status == 65 && synced.stdout == "pushed 2, pulled 0, conflicts 0\n", "\(synced)")
            #expect(synced.stderr.contains("too_large"), "\(synced)")
            let status = try ann.run(["status"])
            #expect(status.stdout.contains("pending:    1"), "\(status)")
            #expect(status.stdout.contains(String(big.prefix(8))) && status.stdout.contains("REJECTED too_large"), "\(status)")
            let json = try ann.succeed(["status", "--json"])
            #expect(json.contains(#""reason" : "too_large""#), "\(json)")

            // Shortened, it fits and goes out.
            try ann.succeed(["edit", String(big.prefix(8)), "--note", "short"])
            let fixed = try ann.run(["sync"])
            #expect(fixed.status == 0 && fixed.stdout == "pushed 1, pulled 0, conflicts 0\n", "\(fixed)")
        }
    }

    @Test func protocolFailureExitsWithItsDocumentedCode() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            // A hello longer than the daemon's line: it answers line_too_long, a protocol failure.
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory, ["--max-line", "256"])
            defer { _ = daemon.stop() }
            let address = try daemon.addressText()
            try ann.succeed(["add", "1", "small", "--date", "2026-03-01"])
            let environment = ["EXPENSE_SERVER": address, "EXPENSE_LEDGER": "default",
                               "EXPENSE_TOKEN": String(repeating: "t", count: 300)]
            let failed = try ann.run(["sync"], environment: environment)
            #expect(failed.status == 76 && failed.stderr.contains("protocol_error") && failed.stderr.contains("line_too_long"),
                    "\(failed)")
            #expect(try ann.succeed(["status", "--json"]).contains(#""pending" : 1"#))
            let status = try ann.succeed(["status"])
            #expect(status.contains("last error: protocol_error: ") && status.contains("line_too_long"), "\(status)")
        }
    }
}
