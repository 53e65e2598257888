import TestSupport
import Foundation
import Testing

/// Export → import round trips never double a ledger; bank exports import once however often they are
/// imported; exported files guard spreadsheet formulas and are private (docs/usage.md, "export" and "import").
@Suite struct ExpenseRoundTripTests {
    /// The ids in `list --json` output, in order.
    static func ids(_ json: String) -> [String] {
        json.components(separatedBy: "\"id\" : \"").dropFirst().map { String($0.prefix(36)) }
    }

    @Test func exportThenImportTwiceAddsNothing() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "12.50", "food", "--date", "2026-01-02"])
            try expense.succeed(["add", "3", "fuel", "--date", "2026-01-03", "--note", "a, b"])
            let before = try expense.succeed(["list", "--json"])
            let file = expense.directory + "/f.csv"
            try expense.succeed(["export", "--output", file])
            for _ in 0..<2 {
                let imported = try expense.run(["import", file])
                #expect(imported.status == 0, "\(imported)")
                #expect(imported.stdout == "0 new, 2 already present, 0 differing\n", "\(imported)")
            }
            #expect(try expense.succeed(["list", "--json"]) == before)
        }
    }

    @Test func aJSONExportImportsBackWithItsIds() async throws {
        try await onOwnThread {
            let source = try ExpenseProcess(), target = try ExpenseProcess()
            try source.succeed(["add", "12.50", "food", "--date", "2026-01-02", "--note", "say \"hi\"\tthen"])
            try source.succeed(["add", "1250", "sushi", "--currency", "JPY", "--date", "2026-01-03"])
            let file = source.directory + "/f.json"
            try source.succeed(["export", "--format", "json", "--output", file])
            let detected = try target.run(["import", file])
            #expect(detected.status == 0 && detected.stdout == "2 new, 0 already present, 0 differing\n", "\(detected)")
            #expect(try target.succeed(["list", "--json"]) == source.succeed(["list", "--json"]))
            let again = try target.run(["import", "--format", "json", file])
            #expect(again.stdout == "0 new, 2 already present, 0 differing\n", "\(again)")
            let bad = try target.run(["import", "--format", "json", "-"], stdin: "[{\"date\":\"2026-01-01\",\"amount\":12.5,\"category\":\"x\"}]")
            #expect(bad.status == 65 && bad.stderr.contains("item 1: invalid_row: amount must be an integer"), "\(bad)")
        }
    }

    @Test func aRowThatDiffersIsReportedAndNotWrittenOver() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let id = try expense.succeed(["add", "12.50", "food", "--date", "2026-01-02"]).trimmingCharacters(in: .newlines)
            let file = expense.directory + "/f.csv"
            try expense.succeed(["export", "--output", file])
            try expense.succeed(["edit", id, "--amount", "13"])
            try expense.succeed(["add", "1", "tea", "--date", "2026-01-05"])
            let dry = try expense.run(["import", "--dry-run", file])
            #expect(dry.stdout == "0 new, 0 already present, 1 differing\n", "\(dry)")
            let imported = try expense.run(["import", file])
            #expect(imported.status == 0 && imported.stdout == "0 new, 0 already present, 1 differing\n", "\(imported)")
            #expect(imported.stderr.contains("line 2: \(id.prefix(8)) differs from the stored expense: amount 12.50 USD here, 13.00 USD stored"),
                    "\(imported)")
            #expect(try expense.succeed(["list", "--json"]).contains("\"amount\" : 1300"))
        }
    }

    @Test func aBankExportImportsOnceAndKeepsIdenticalRows() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let file = expense.directory + "/bank.csv"
            try """
                Buchungstag;Valuta;Betrag;Kategorie;Verwendungszweck\r
                02.01.2026;03.01.2026;1.234,50;Miete;"Januar; Wohnung"\r
                05.01.2026;05.01.2026;4,20;Kaffee;Bäckerei\r
                05.01.2026;05.01.2026;4,20;Kaffee;Bäckerei\r

                """.write(toFile: file, atomically: true, encoding: .utf8)
            let options = ["--map", "date=Buchungstag,amount=Betrag,category=Kategorie,note=Verwendungszweck",
                           "--currency", "EUR", "--delimiter", ";", "--decimal-comma", "--date-format", "DD.MM.YYYY"]
            let dry = try expense.run(["import", file, "--dry-run"] + options)
            #expect(dry.status == 0 && dry.stdout == "3 new, 0 already present, 0 differing\n", "\(dry)")
            #expect(try expense.succeed(["list", "--json"]) == "[]\n")
            #expect(try expense.succeed(["import", file] + options) == "3 new, 0 already present, 0 differing\n")
            #expect(try expense.succeed(["import", file] + options) == "0 new, 3 already present, 0 differing\n")
            let listed = try expense.succeed(["list", "--json"])
            #expect(Self.ids(listed).count == 3 && Set(Self.ids(listed)).count == 3, "\(listed)")
            #expect(listed.contains("\"amount\" : 123450") && listed.contains("\"note\" : \"Januar; Wohnung\""), "\(listed)")
            #expect(listed.contains("\"currency\" : \"EUR\"") && listed.contains("\"date\" : \"2026-01-02\""))

            // A second machine importing the same file gets the same ids.
            let other = try ExpenseProcess()
            try other.succeed(["import", file] + options)
            #expect(Self.ids(try other.succeed(["list", "--json"])) == Self.ids(listed))

            // A refund is refused with a clear message; nothing is imported.
            try "Buchungstag;Betrag;Kategorie\n07.01.2026;-4,20;Kaffee\n".write(toFile: file, atomically: true, encoding: .utf8)
            let refund = try expense.run(["import", file, "--map", "date=Buchungstag,amount=Betrag,category=Kategorie",
                                          "--delimiter", ";", "--decimal-comma", "--date-format", "DD.MM.YYYY"])
            #expect(refund.status == 65 && refund.stderr.contains("line 2: invalid_amount") && refund.stderr.contains("refund"),
                    "\(refund)")
            let missing = try expense.run(["import", file, "--map", "date=Datum,amount=Betrag,category=Kategorie", "--delimiter", ";"])
            #expect(missing.status == 65 && missing.stderr.contains("'Datum'"), "\(missing)")
            let wrongMap = try expense.run(["import", file, "--map", "when=Buchungstag"])
            #expect(wrongMap.status == 64, "\(wrongMap)")
        }
    }

    @Test func formulasAreGuardedInCSVAndReadBackExactly() async throws {
        try await onOwnThread {
            let source = try ExpenseProcess(), target = try ExpenseProcess()
            try source.succeed(["add", "1", "=SUM(A1:A9)", "--date", "2026-01-01", "--note", "@cmd"])
            try source.succeed(["add", "2", "+tax", "--date", "2026-01-02", "--note", "-2+3"])
            try source.succeed(["add", "3", "'=quoted", "--date", "2026-01-03", "--note", "\tindented"])
            let file = source.directory + "/f.csv"
            try source.succeed(["export", "--output", file])
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for guarded in ["\"'=SUM(A1:A9)\"", "\"'@cmd\"", "\"'+tax\"", "\"'-2+3\"", "\"''=quoted\"", "\"'\tindented\""] {
                #expect(text.contains(guarded), "\(guarded) in \(text)")
            }
            try target.succeed(["import", file])
            #expect(try target.succeed(["list", "--json"]) == source.succeed(["list", "--json"]))
        }
    }

    @Test func anExportFileIsPrivate() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1", "food"])
            let file = expense.directory + "/f.csv"
            try "old".write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
            for format in ["csv", "json"] {
                try expense.succeed(["export", "--format", format, "--output", file])
                let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(format): \(String(mode ?? 0, radix: 8))")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: expense.directory).filter { $0.contains(".tmp-") }.isEmpty)
        }
    }
}
