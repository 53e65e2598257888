import TestSupport
import Foundation
import Testing

/// `expense rate set|list|remove|import` through the real binary, and one day and pair set to two rates on two
/// machines through a real `expensed`: a conflict of the rate, not two records.
@Suite struct RateCommandTests {
    static let environment = ["LC_ALL": "C"]

    @Test("rate set, list (text, JSON, --from/--to), set again, remove; a bad rate, date or pair exits 65, a missing argument 64")
    func setListRemove() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let id = try ann.succeed(["rate", "set", "2026-12-04", "EUR", "USD", "1.05340"]).trimmingCharacters(in: .newlines)
            #expect(id.count == 36, "\(id)")
            try ann.succeed(["rate", "set", "2026-12-01", "USD", "JPY", "0157.2"])
            #expect(try ann.succeed(["rate", "list"], environment: Self.environment)
                    == "2026-12-01  1 USD = 157.2 JPY\n2026-12-04  1 EUR = 1.0534 USD\n")
            #expect(try ann.succeed(["rate", "list", "--from", "2026-12-02", "--json"]) == """
                [
                  {
                    "date" : "2026-12-04",
                    "from" : "EUR",
                    "id" : "\(id)",
                    "rate" : "1.0534",
                    "to" : "USD"
                  }
                ]

                """)
            #expect(try ann.succeed(["rate", "list", "--to", "2026-12-01"]) == "2026-12-01  1 USD = 157.2 JPY\n")
            // The same day and pair is the same record: setting it again changes it.
            #expect(try ann.succeed(["rate", "set", "2026-12-04", "EUR", "USD", "1.06"]).trimmingCharacters(in: .newlines) == id)
            #expect(try ann.succeed(["rate", "list", "--from", "2026-12-04"]) == "2026-12-04  1 EUR = 1.06 USD\n")
            let removed = try ann.run(["rate", "remove", "2026-12-04", "EUR", "USD"])
            #expect(removed.status == 0 && removed.stderr.contains("Removed the rate of EUR in USD on 2026-12-04"), "\(removed)")
            let again = try ann.run(["rate", "remove", "2026-12-04", "EUR", "USD"])
            #expect(again.status == 1 && again.stderr.hasPrefix("Error: not_found:"), "\(again)")
            try ann.succeed(["rate", "remove", "2026-12-01", "USD", "JPY"])
            let empty = try ann.run(["rate", "list"])
            #expect(empty.status == 0 && empty.stdout.isEmpty && empty.stderr == "No exchange rates set.\n", "\(empty)")
            #expect(try ann.succeed(["rate", "list", "--json"]) == "[]\n")

            for (arguments, code) in [(["2026-12-04", "EUR", "USD", "0"], "invalid_rate"), (["2026-12-04", "EUR", "USD", "1e3"], "invalid_rate"),
                                      (["--", "2026-12-04", "EUR", "USD", "-1.5"], "invalid_rate"),
                                      (["2026-12-04", "EUR", "USD", "1.0000000000001"], "invalid_rate"),
                                      (["2026-12-04", "EUR", "EUR", "1"], "invalid_value"), (["2026-02-30", "EUR", "USD", "1"], "invalid_date"),
                                      (["2026-12-04", "usd", "EUR", "1"], "invalid_currency")] {
                let refused = try ann.run(["rate", "set"] + arguments)
                #expect(refused.status == 65 && refused.stderr.hasPrefix("Error: \(code):") && refused.stdout.isEmpty, "\(arguments): \(refused)")
            }
            #expect(try ann.run(["rate", "set", "2026-12-04", "EUR", "USD"]).status == 64)
            #expect(try ann.run(["rate", "set", "2026-12-04", "EUR", "USD", "-1.5"]).status == 64, "an option, unless after --")
            #expect(try ann.run(["rate", "list", "--from", "tomorrow"]).status == 65)
            #expect(try ann.succeed(["rate", "list", "--json"]) == "[]\n", "nothing refused was stored")
            for command in ["set", "list", "remove", "import"] {
                let help = try ann.run(["rate", command, "--help"])
                #expect(help.status == 0 && help.stdout.contains("USAGE: expense rate \(command)"), "\(help)")
            }
        }
    }

    @Test("rate import reads date,from,to,rate lines and the ECB's files; a bad row sets nothing and is named")
    func importFiles() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let ours = ann.directory + "/rates.csv"
            try "date,from,to,rate\n2026-12-01,EUR,USD,1.05\n2026-12-01,USD,JPY,157.20\n".write(toFile: ours, atomically: true, encoding: .utf8)
            #expect(try ann.succeed(["rate", "import", ours]) == "2 set, 0 already set\n")
            #expect(try ann.succeed(["rate", "import", ours]) == "0 set, 2 already set\n")

            // eurofxref.csv: one day, a space after each comma, a trailing comma; CYP is no longer a currency.
            let daily = ann.directory + "/eurofxref.csv"
            try "Date, USD, JPY, CYP, BHD, \n04 December 2026, 1.0534, 157.20, 0.5853, 0.3971, \n"
                .write(toFile: daily, atomically: true, encoding: .utf8)
            let imported = try ann.run(["rate", "import", daily])
            #expect(imported.status == 0 && imported.stdout == "3 set, 0 already set\n", "\(imported)")
            #expect(imported.stderr.contains("Warning: skipping the column 'CYP'"), "\(imported)")
            // eurofxref-hist.csv: ISO dates, N/A cells.
            let history = ann.directory + "/eurofxref-hist.csv"
            try "Date,USD,JPY,\n2026-12-03,1.0512,N/A,\n2026-12-02,1.0499,156.9,\n".write(toFile: history, atomically: true, encoding: .utf8)
            #expect(try ann.succeed(["rate", "import", history]) == "3 set, 0 already set\n")
            let list = try ann.succeed(["rate", "list", "--from", "2026-12-02"], environment: Self.environment)
            #expect(list == """
                2026-12-02  1 EUR = 156.9 JPY
                2026-12-02  1 EUR = 1.0499 USD
                2026-12-03  1 EUR = 1.0512 USD
                2026-12-04  1 EUR = 0.3971 BHD
                2026-12-04  1 EUR = 157.2 JPY
                2026-12-04  1 EUR = 1.0534 USD

                """, "\(list)")

            let bad = ann.directory + "/bad.csv"
            try "2026-12-10,EUR,USD,1.1\n2026-12-10,EUR,GBP,0\n2026-12-11,EUR,USD\n2026-12-10,EUR,USD,1.2\n"
                .write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try ann.run(["rate", "import", bad])
            #expect(refused.status == 65 && refused.stderr.hasPrefix("Error: nothing imported: 3 bad rows"), "\(refused)")
            #expect(refused.stderr.contains("line 2: invalid_rate:") && refused.stderr.contains("line 3: invalid_row:")
                    && refused.stderr.contains("line 4: duplicate_rate:"), "\(refused)")
            #expect(try !ann.succeed(["rate", "list"]).contains("2026-12-10"), "an import with a bad row sets nothing")
            let stdin = try ann.run(["rate", "import", "-"], stdin: "2026-12-10,EUR,USD,1.1\n")
            #expect(stdin.status == 0 && stdin.stdout == "1 set, 0 already set\n", "\(stdin)")
            #expect(try ann.run(["rate", "import", ann.directory + "/missing.csv"]).status == 74)
        }
    }

    @Test("one day and pair set to two rates on two machines is one record in conflict, resolved like a budget")
    func twoMachinesConflict() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let id = try ann.succeed(["rate", "set", "2026-12-04", "EUR", "USD", "1.05"]).trimmingCharacters(in: .newlines)
            #expect(try bob.succeed(["rate", "set", "2026-12-04", "EUR", "USD", "1.06"]).trimmingCharacters(in: .newlines) == id)
            try ann.succeed(["sync"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let listed = try bob.run(["conflicts"], environment: Self.environment)
            #expect(listed.stdout.hasPrefix("\(id)  rate\n") && listed.stdout.contains("1.05") && listed.stdout.contains("1.06"), "\(listed)")
            #expect(try bob.succeed(["rate", "list"], environment: Self.environment).contains("CONFLICT"))
            let resolved = try bob.run(["resolve", String(id.prefix(8)), "--mine"])
            #expect(resolved.status == 0, "\(resolved)")
            try bob.succeed(["sync"])
            try ann.succeed(["sync"])
            #expect(try ann.succeed(["rate", "list"]) == "2026-12-04  1 EUR = 1.06 USD\n")
        }
    }
}
