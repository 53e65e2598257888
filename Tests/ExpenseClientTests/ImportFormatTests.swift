import ExpenseClient
import ExpenseCore
import Testing

@Suite struct ImportFormatTests {
    static let eur = Currency(code: "EUR") ?? .usd

    @Test(arguments: [
        ("12.50", false, Int64(1250)), ("+12.50", false, 1250), ("1,234.56", false, 123_456), ("1 234.56", false, 123_456),
        ("1'234'567.8", false, 123_456_780), (" 7 ", false, 700), ("1.234,56", true, 123_456), ("4,2", true, 420),
        ("1\u{00A0}234,00", true, 123_400), ("1,250", false, 125_000),
    ])
    func bankAmountsAreExact(text: String, decimalComma: Bool, minorUnits: Int64) throws {
        #expect(try ImportAmount.parse(text, currency: Self.eur, decimalComma: decimalComma) == minorUnits)
    }

    @Test(arguments: [("12,50", false), ("1,23,456.00", false), ("1.234.5", true), ("12.5.0", false), ("1e3", false),
                      ("", false), ("1.234,5,6", true), ("12.505", false), ("0", false)])
    func badBankAmountsAreRefused(text: String, decimalComma: Bool) {
        #expect(throws: ValidationError.self) { try ImportAmount.parse(text, currency: Self.eur, decimalComma: decimalComma) }
    }

    @Test func aNegativeAmountIsARefundAndRefused() {
        for text in ["-4,20", "\u{2212}4,20"] {
            do {
                _ = try ImportAmount.parse(text, currency: Self.eur, decimalComma: true)
                Issue.record("accepted \(text)")
            } catch let error as ValidationError {
                #expect(error.code == "invalid_amount" && error.message.contains("refund"))
            } catch { Issue.record("\(error)") }
        }
    }

    @Test func dateFormats() throws {
        let german = try ImportDateFormat("DD.MM.YYYY")
        #expect(german.isoText("02.01.2026") == "2026-01-02")
        #expect(german.isoText("2.1.2026") == "2026-01-02")
        #expect(german.isoText("2026-01-02") == nil)
        #expect(german.isoText("02.01.26") == nil)
        #expect(try ImportDateFormat("MM/DD/YYYY").isoText("12/31/2025") == "2025-12-31")
        for bad in ["DD.MM", "YYYY-MM-DD-DD", "DD.MM.YY", "dd.mm.yyyy"] {
            #expect(throws: ImportOptionError.badDateFormat(bad)) { try ImportDateFormat(bad) }
        }
    }

    @Test func maps() throws {
        let columns = try ImportOptions.columns(fromMap: "date=Buchungstag,amount=Betrag,category=Kategorie,note=Verwendungszweck")
        #expect(columns == [.date: "Buchungstag", .amount: "Betrag", .category: "Kategorie", .note: "Verwendungszweck"])
        #expect(throws: ImportOptionError.missingField("category")) { try ImportOptions.columns(fromMap: "date=D,amount=A") }
        #expect(throws: ImportOptionError.unknownField("when")) { try ImportOptions.columns(fromMap: "when=D") }
        #expect(throws: ImportOptionError.repeatedField("date")) { try ImportOptions.columns(fromMap: "date=A,date=B") }
        #expect(throws: ImportOptionError.badMap("date")) { try ImportOptions.columns(fromMap: "date,amount=A") }
        #expect(try ImportOptions.delimiter(from: ";") == ";")
        #expect(try ImportOptions.delimiter(from: "tab") == "\t")
        #expect(throws: ImportOptionError.badDelimiter("\"")) { try ImportOptions.delimiter(from: "\"") }
        #expect(throws: ImportOptionError.badDelimiter(";;")) { try ImportOptions.delimiter(from: ";;") }
    }

    @Test func aMappedBankFileIgnoresOtherColumnsAndKeepsQuotedDelimiters() throws {
        var options = ImportOptions()
        options.columns = try ImportOptions.columns(fromMap: "date=Buchungstag,amount=Betrag,category=Kategorie,note=Zweck")
        options.delimiter = ";"
        options.decimalComma = true
        options.dateFormat = try ImportDateFormat("DD.MM.YYYY")
        options.currency = Self.eur
        let text = "Konto;Buchungstag;Betrag;Kategorie;Zweck\nDE1;02.01.2026;1.234,50;Miete;\"a; b\"\n"
        let rows = try CSVImporter.rows(from: text, options: options, defaultCurrency: .usd)
        #expect(rows.map(\.line) == [2] && rows.map(\.idGiven) == [false])
        let expense = try #require(rows.first?.expense)
        #expect(expense.amount == 123_450 && expense.currency == Self.eur && expense.date.description == "2026-01-02")
        #expect(expense.note == "a; b" && expense.category == "Miete")
    }

    @Test func ourHeaderWithIdsInAnyOrderAndDuplicateIds() throws {
        let id = "0f8fad5b-d9cb-469f-a165-70867728950e"
        let text = "note,category,currency,amount,date,id\nx,food,USD,1.00,2026-01-01,\(id)\n"
        let rows = try CSVImporter.rows(from: text, options: ImportOptions(), defaultCurrency: .usd)
        #expect(rows.map(\.expense.idString) == [id] && rows.map(\.idGiven) == [true])
        do {
            _ = try CSVImporter.rows(from: text + "y,food,USD,2.00,2026-01-01,\(id.uppercased())\n", options: ImportOptions(),
                                     defaultCurrency: .usd)
            Issue.record("a repeated id was accepted")
        } catch {
            guard case .invalidRows(let problems, _) = error else { Issue.record("\(error)"); return }
            #expect(problems.map(\.description) == ["line 3: duplicate_id: the id \(id) is also on line 2"])
        }
        #expect(throws: ImportError.self) {
            try CSVImporter.rows(from: "date,amount,currency,category,note,extra\n", options: ImportOptions(), defaultCurrency: .usd)
        }
    }

    @Test func badRowsAreCountedBeyondTheFiftyShown() {
        let text = "date,amount,currency,category,note\n" + String(repeating: "2026-01-01,0,USD,x,\n", count: 1000)
        do {
            _ = try CSVImporter.rows(from: text, options: ImportOptions(), defaultCurrency: .usd)
            Issue.record("accepted")
        } catch {
            guard case .invalidRows(let problems, let total) = error else { Issue.record("\(error)"); return }
            #expect(problems.count == 50 && total == 1000)
        }
    }

    @Test func jsonExportRows() throws {
        let text = """
            [
              {"amount": 1250, "category": "food", "currency": "JPY", "date": "2026-01-02", "id": "0f8fad5b-d9cb-469f-a165-70867728950e", "note": "a"},
              {"amount": 100, "category": "tea", "date": "2026-01-03"}
            ]
            """
        let rows = try JSONImporter.rows(from: text, defaultCurrency: .usd)
        #expect(rows.map(\.expense.amount) == [1250, 100])
        #expect(rows.map(\.expense.currency.code) == ["JPY", "USD"])
        #expect(rows.map(\.idGiven) == [true, false])
        #expect(throws: ImportError.self) { try JSONImporter.rows(from: "{}", defaultCurrency: .usd) }
        #expect(throws: ImportError.self) { try JSONImporter.rows(from: "[1", defaultCurrency: .usd) }
        do {
            _ = try JSONImporter.rows(from: #"[{"amount": "12", "category": "x", "date": "2026-01-01"}, {"amount": 1}]"#, defaultCurrency: .usd)
            Issue.record("accepted")
        } catch {
            guard case .invalidRows(let problems, let total) = error else { Issue.record("\(error)"); return }
            #expect(total == 2)
            #expect(problems.map(\.description) == ["item 1: invalid_row: amount must be an integer of minor units, such as 1250 for 12.50 USD",
                                                    "item 2: missing_field: the category is missing"])
        }
    }

    @Test(arguments: ["=1+2", "+1", "-1", "@SUM(A1)", "\tx", "'=x", "''@x", "'plain", "plain", "", "'", "a=b"])
    func formulaGuardsRoundTrip(value: String) throws {
        let guarded = CSV.guardFormula(value)
        #expect(CSV.unguardFormula(guarded) == value)
        if let first = guarded.unicodeScalars.first { #expect(!["=", "+", "-", "@", "\t", "\r"].contains(first)) }
        let row = CSV.row([value, "end"])
        #expect(try CSV.parse(row).first.map { $0.fields.map(CSV.unguardFormula) } == [value, "end"])
    }

    @Test func delimiterParsing() throws {
        #expect(try CSV.parse("a;\"b;c\";d\n", delimiter: ";") == [CSVRecord(line: 1, fields: ["a", "b;c", "d"])])
        #expect(try CSV.parse("a\tb\n", delimiter: "\t") == [CSVRecord(line: 1, fields: ["a", "b"])])
    }
}
