import Foundation
import TestSupport
import Testing

/// The bank's original text kept on an imported expense (`source`), through the real binary: rules read it after
/// the note was edited or set by a rule, and export and import carry it.
@Suite struct BankTextCommandTests {
    static let mapOptions = ["--map", "date=Buchungstag,amount=Betrag,category=Buchungstext,note=Verwendungszweck",
                             "--currency", "EUR", "--delimiter", ";", "--decimal-comma", "--date-format", "DD.MM.YYYY"]

    /// Writes a German bank's CSV into `process`'s directory and returns its path.
    static func bankFile(_ process: ExpenseProcess) throws -> String {
        let file = process.directory + "/umsaetze.csv"
        try """
            Buchungstag;Valuta;Buchungstext;Verwendungszweck;Betrag\r
            02.12.2026;02.12.2026;Kartenzahlung;REWE SAGT DANKE 4711;23,45\r
            04.12.2026;04.12.2026;Kartenzahlung;EDEKA Center;75,10\r

            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The expenses of `list --json`, each as its JSON object.
    static func listed(_ process: ExpenseProcess) throws -> [[String: Any]] {
        let data = Data(try process.succeed(["list", "--json"]).utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    @Test("a bank's text imported with --map is kept as source; after edit --note, rule apply still matches it")
    func ruleApplyAfterEditingTheNote() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let file = try Self.bankFile(ann)
            #expect(try ann.succeed(["import", file] + Self.mapOptions) == "2 new, 0 already present, 0 differing\n")
            let rewe = try #require(try Self.listed(ann).first { $0["note"] as? String == "REWE SAGT DANKE 4711" })
            #expect(rewe["source"] as? String == "REWE SAGT DANKE 4711", "\(rewe)")
            let id = try #require(rewe["id"] as? String)
            #expect(try !ann.succeed(["list"]).contains("SOURCE"), "the bank's text is the note: no column for it")
            try ann.succeed(["edit", id, "--note", "something else"])
            // Once the note says something else, the table shows the bank's text beside it, for that row only.
            let table = try ann.succeed(["list"], environment: ["LC_ALL": "C"]).split(separator: "\n").map(String.init)
            #expect(table.count == 3 && table[0].contains("NOTE            SOURCE") && table[1].contains("something else  REWE SAGT DANKE 4711")
                    && table[2].contains("EDEKA Center    ") && !table[2].contains("EDEKA Center    EDEKA"), "\(table)")
            let added = try ann.succeed(["add", "3.50", "Kartenzahlung", "--note", "Kiosk", "--date", "2026-12-05"])
            #expect(try Self.listed(ann).first { $0["note"] as? String == "Kiosk" }?["source"] == nil, "add keeps no original text")
            try ann.succeed(["rule", "add", "--name", "groceries", "--match", "text~^(rewe|edeka) ", "--set-category", "groceries"])
            // The note no longer says REWE; the bank's text still does (EDEKA's note still says it too). An expense
            // made by add offers its note.
            try ann.succeed(["rule", "add", "--name", "kiosk", "--match", "text~^kiosk$", "--set-category", "snacks"])
            let applied = try ann.run(["rule", "apply"])
            #expect(applied.status == 0 && applied.stdout.hasSuffix("3 expenses changed by rules\n"), "\(applied)")
            let after = try Self.listed(ann)
            let edited = try #require(after.first { $0["id"] as? String == id })
            #expect(edited["category"] as? String == "groceries" && edited["note"] as? String == "something else"
                    && edited["source"] as? String == "REWE SAGT DANKE 4711", "\(edited)")
            let kiosk = try #require(after.first { ($0["id"] as? String).map { added.hasPrefix($0) } == true })
            #expect(kiosk["category"] as? String == "snacks", "\(kiosk)")
            #expect(try ann.succeed(["rule", "apply"]) == "0 expenses changed by rules\n")
            // edit has no option for it: the bank's text is kept as the bank gave it.
            #expect(try ann.run(["edit", id, "--source", "x"]).status == 64)
        }
    }

    @Test("a rule's --set-note at import leaves the bank's text for a later rule apply")
    func setNoteAtImport() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let file = try Self.bankFile(ann)
            try ann.succeed(["rule", "add", "--name", "shop", "--match", "text~edeka", "--set-note", "Wocheneinkauf"])
            #expect(try ann.succeed(["import", file] + Self.mapOptions) == "2 new, 0 already present, 0 differing; 1 changed by rules\n")
            let edeka = try #require(try Self.listed(ann).first { $0["note"] as? String == "Wocheneinkauf" })
            #expect(edeka["source"] as? String == "EDEKA Center", "\(edeka)")
            try ann.succeed(["rule", "add", "--name", "groceries", "--match", "text~^edeka center$", "--set-category", "groceries"])
            #expect(try ann.succeed(["rule", "apply"]).hasSuffix("1 expense changed by rules\n"))
            // The same file again: same ids and values, nothing new.
            #expect(try ann.succeed(["import", file] + Self.mapOptions).hasPrefix("0 new, 2 already present, 0 differing"))
        }
    }

    @Test("export writes the source column and import reads it back, CSV and JSON")
    func exportImportKeepsSource() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let file = try Self.bankFile(ann)
            try ann.succeed(["import", file] + Self.mapOptions)
            let rewe = try #require(try Self.listed(ann).first { $0["note"] as? String == "REWE SAGT DANKE 4711" })
            let id = try #require(rewe["id"] as? String)
            try ann.succeed(["edit", id, "--note", "something else"])
            let csv = try ann.succeed(["export"])
            #expect(csv.hasPrefix("id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n")
                    && csv.contains("\(id),2026-12-02,23.45,EUR,Kartenzahlung,something else,,,,,,REWE SAGT DANKE 4711\n"), "\(csv)")
            for format in ["csv", "json"] {
                let saved = ann.directory + "/saved.\(format)"
                try ann.succeed(["export", "--format", format, "--output", saved])
                let bob = try ExpenseProcess()
                #expect(try bob.succeed(["import", saved]) == "2 new, 0 already present, 0 differing\n")
                let back = try #require(try Self.listed(bob).first { $0["id"] as? String == id })
                #expect(back["source"] as? String == "REWE SAGT DANKE 4711" && back["note"] as? String == "something else", "\(format): \(back)")
            }
        }
    }

    @Test("the bank's text syncs through the daemon: the other machine's rule apply matches it after the note was edited")
    func syncedThroughTheDaemon() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            try ann.succeed(["config", "set", "currency", "EUR"])
            try bob.succeed(["config", "set", "currency", "EUR"])
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob], ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            let file = try Self.bankFile(ann)
            try ann.succeed(["import", file] + Self.mapOptions)
            let rewe = try #require(try Self.listed(ann).first { $0["note"] as? String == "REWE SAGT DANKE 4711" })
            let id = try #require(rewe["id"] as? String)
            try ann.succeed(["edit", id, "--note", "something else"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"])
            let pulled = try #require(try Self.listed(bob).first { $0["id"] as? String == id })
            #expect(pulled["source"] as? String == "REWE SAGT DANKE 4711" && pulled["note"] as? String == "something else", "\(pulled)")
            try bob.succeed(["rule", "add", "--name", "rewe", "--match", "text~^rewe ", "--set-category", "groceries"])
            #expect(try bob.succeed(["rule", "apply"]).hasSuffix("1 expense changed by rules\n"))
            try bob.succeed(["sync"]); try ann.succeed(["sync"])
            let back = try #require(try Self.listed(ann).first { $0["id"] as? String == id })
            #expect(back["category"] as? String == "groceries" && back["source"] as? String == "REWE SAGT DANKE 4711", "\(back)")
        }
    }
}
