import TestSupport
import Foundation
import Testing

/// `expense export` on a damaged cache, which the damage error itself advises: it saves every expense it can
/// read, says how many rows it could not, and never writes to the damaged file.
@Suite(.serialized) struct DamagedCacheExportTests {
    private static let count = 3000

    /// A cache of `count` expenses whose notes carry their number (`row-N-…`), synced so every one lives in the
    /// expense table alone (no queue entries), then closed (checkpointed into the main file).
    private static func syncedCache(_ person: ExpenseProcess) throws -> DaemonProcess {
        let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [person])
        let filler = String(repeating: "x", count: 200)
        let rows = (1...count).map { "2026-02-\(String(format: "%02d", $0 % 28 + 1)),\($0).10,USD,food,row-\($0)-\(filler)" }
        let csv = person.directory + "/rows.csv"
        try ("date,amount,currency,category,note\n" + rows.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        try person.succeed(["import", csv])
        try person.succeed(["sync"])
        return daemon
    }

    /// Overwrites, with garbage, every page of `file` that holds `marker`.
    private static func damagePages(of file: String, holding marker: String) throws -> Int {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])  // the header's page size (1 means 65,536)
        let needle = [UInt8](marker.utf8)
        var damaged = Set<Int>()
        var offset = 0
        while offset + needle.count <= bytes.count {
            if bytes[offset] == needle[0], Array(bytes[offset..<offset + needle.count]) == needle { damaged.insert(offset / pageSize) }
            offset += 1
        }
        for page in damaged where page > 0 {
            for index in page * pageSize..<(page + 1) * pageSize { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return damaged.count
    }

    @Test func exportSavesEveryReadableExpenseOfADamagedCacheAndSaysHowManyRowsItCouldNotRead() async throws {
        try await onOwnThread {
            let person = try ExpenseProcess()
            let daemon = try Self.syncedCache(person)
            defer { _ = daemon.stop() }
            let cache = person.home + "/cache.sqlite"
            #expect(!FileManager.default.fileExists(atPath: cache + "-wal"), "the cache was checkpointed on close")
            #expect(try Self.damagePages(of: cache, holding: "row-1500-") >= 1)
            let damaged = try Data(contentsOf: URL(fileURLWithPath: cache))
            let broken = try person.run(["list"])
            #expect(broken.status == 74 && broken.stderr.contains("expense export"), "\(broken)")

            let saved = person.directory + "/saved.csv"
            let export = try person.run(["export", "--output", saved])
            // Some rows were lost: the export is written, and the exit status says it is not whole.
            #expect(export.status == 74, "\(export)")
            let text = try String(contentsOfFile: saved, encoding: .utf8)
            let lines = text.split(separator: "\n").dropFirst()
            let unreadable = try #require(Self.number(before: " rows of the damaged cache could not be read", in: export.stderr),
                                          "\(export)")
            #expect(lines.count + unreadable == Self.count, "\(lines.count) saved, \(unreadable) unreadable: \(export.stderr)")
            // About 60 rows of 270 bytes fill one 16 KiB page: what is lost is the damaged page, not what follows it.
            #expect((1...130).contains(unreadable), "\(export.stderr)")
            #expect(!text.contains("row-1500-") && text.contains("row-1-") && text.contains("row-\(Self.count)-"))
            #expect(export.stderr.contains("exported \(lines.count) expenses to \(saved)"), "\(export)")
            // The damaged cache was not written to (a read may leave an empty log beside it, never a frame).
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == damaged)
            #expect(((try? FileManager.default.attributesOfItem(atPath: cache + "-wal"))?[.size] as? Int ?? 0) == 0)

            // To standard output the same rows come, each once, however far the ordinary read got first.
            let piped = try person.run(["export"])
            #expect(piped.status == 74)
            let pipedLines = piped.stdout.split(separator: "\n").dropFirst()
            #expect(pipedLines.count == lines.count && Set(pipedLines) == Set(lines), "\(pipedLines.count) against \(lines.count)")

            // The salvage is what the advice promised: import into a fresh cache restores every readable expense.
            let fresh = try ExpenseProcess()
            try fresh.succeed(["import", saved])
            #expect(try fresh.succeed(["list", "--json"]).components(separatedBy: "\"id\"").count - 1 == lines.count)
        }
    }

    @Test(arguments: ["sqlite", "json"])
    func aCacheThatIsNotReadableAtAllExportsNothingAndSaysSo(store: String) async throws {
        try await onOwnThread {
            let person = try ExpenseProcess()
            try FileManager.default.createDirectory(atPath: person.home, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let cache = person.home + (store == "sqlite" ? "/cache.sqlite" : "/cache.json")
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: cache))
            let saved = person.directory + "/saved.csv"
            let export = try person.run(["export", "--output", saved], environment: ["EXPENSE_STORE": store])
            #expect(export.status == 74, "\(export)")
            #expect(export.stderr.contains("exported 0 expenses") && export.stderr.contains("damaged"), "\(export)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == Data(repeating: 0x42, count: 4096))
        }
    }

    @Test func aDamagedJSONCacheExportsTheEntriesBeforeTheDamage() async throws {
        try await onOwnThread {
            let person = try ExpenseProcess()
            let environment = ["EXPENSE_STORE": "json"]
            for day in 1...9 { try person.succeed(["add", "\(day).00", "food", "--date", "2026-01-0\(day)"], environment: environment) }
            let cache = person.home + "/cache.json"
            let whole = try String(contentsOfFile: cache, encoding: .utf8)
            // Cut short in the middle of the fifth expense, as a crash of a program without atomic writes leaves it.
            let entries = whole.components(separatedBy: "\"amount\"")
            let cut = entries.prefix(5).joined(separator: "\"amount\"") + "\"amou"
            try cut.write(toFile: cache, atomically: true, encoding: .utf8)
            let export = try person.run(["export"], environment: environment)
            #expect(export.status == 74, "\(export)")
            #expect(export.stdout.split(separator: "\n").count - 1 == 4, "\(export)")
            #expect(export.stderr.contains("could not be read"), "\(export)")
        }
    }

    private static func number(before suffix: String, in text: String) -> Int? {
        guard let range = text.range(of: suffix) else { return nil }
        return Int(text[..<range.lowerBound].split(whereSeparator: { !$0.isNumber }).last ?? "")
    }
}
