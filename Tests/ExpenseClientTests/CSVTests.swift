import ExpenseClient
import ExpenseCore
import Testing

@Suite struct CSVTests {
    @Test func quotingCRLFAndQuotedNewlines() throws {
        let text = "a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\r\nlast,,\"\"\n"
        #expect(try CSV.parse(text) == [
            CSVRecord(line: 1, fields: ["a", "b", "c"]),
            CSVRecord(line: 2, fields: ["x, y", "say \"hi\"", "two\nlines"]),
            CSVRecord(line: 4, fields: ["last", "", ""]),
        ])
    }

    @Test func aLineBreakInsideQuotesIsReadAsLFWhateverTheFileUses() throws {
        let text = "h\r\n\"crlf\r\ninside\",\"cr\rinside\"\r\nnext,row\r\n"
        #expect(try CSV.parse(text) == [
            CSVRecord(line: 1, fields: ["h"]),
            CSVRecord(line: 2, fields: ["crlf\ninside", "cr\ninside"]),
            CSVRecord(line: 5, fields: ["next", "row"]),
        ])
        let csv = "date,amount,currency,category,note\r\n2026-01-05,3.10,USD,food,\"multi\r\nline, with \"\"quotes\"\"\"\r\n"
        let expenses = try CSVImporter.expenses(from: csv, defaultCurrency: .usd)
        #expect(expenses.map(\.note) == ["multi\nline, with \"quotes\""])
    }

    @Test func noFinalNewlineBlankLinesAndBOM() throws {
        #expect(try CSV.parse("\u{FEFF}a,b\n\nc,d") == [CSVRecord(line: 1, fields: ["a", "b"]), CSVRecord(line: 3, fields: ["c", "d"])])
        #expect(try CSV.parse("") == [])
    }

    @Test(arguments: [
        ("a,\"open\nnever closed\n", CSVError.unterminatedQuote(line: 1)),
        ("h\nab\"c,d\n", CSVError.unexpectedQuote(line: 2)),
        ("h\n\"ab\"c,d\n", CSVError.unexpectedQuote(line: 2)),
    ])
    func malformed(text: String, error: CSVError) {
        #expect(throws: error) { try CSV.parse(text) }
    }

    @Test func writingRoundTrips() throws {
        let fields = ["plain", "comma, here", "quote \" here", "new\nline", ""]
        #expect(try CSV.parse(CSV.row(fields)) == [CSVRecord(line: 1, fields: fields)])
    }

    /// A quote followed by a combining mark is one Character with it: doubling quotes Character by Character
    /// left it single, and the row could not be read back (so an `export` holding such a note could not be
    /// imported). Found by `Scripts/fuzz --target csv`.
    @Test func aQuoteFollowedByACombiningMarkIsDoubledLikeAnyOther() throws {
        let fields = ["say \"\u{0598}hi\"\u{0301}", "\"\u{20DD}", "end"]
        let row = CSV.row(fields)
        // Three quotes doubled, and two fields quoted.
        #expect(row.unicodeScalars.filter { $0 == "\"" }.count == 3 * 2 + 2 * 2)
        let read = try CSV.parse(row)
        #expect(read.map { $0.fields.map { Array($0.unicodeScalars) } } == [fields.map { Array($0.unicodeScalars) }])
        let note = "a \"\u{0598}quoted\"\u{0598} note"
        let exported = CSV.row(CSVImporter.header) + CSV.row(["6f9619ff-8b86-d011-b42d-00cf4fc964ff", "2026-11-30", "12.50", "USD", "food", note, "", "", "", "", "", ""])
        let expenses = try CSVImporter.expenses(from: exported, defaultCurrency: .usd)
        #expect(expenses.map { Array($0.note.unicodeScalars) } == [Array(note.unicodeScalars)])
    }

    @Test func importNamesThePhysicalLineOfEachBadRow() {
        let csv = """
            date,amount,currency,category,note
            2026-01-01,12.50,USD,food,"a note
            over two lines"
            2026-01-02,12.505,USD,food,
            2026-02-30,1,USD,food,
            2026-01-03,1,USD,food
            2026-01-04,0.1,,,

            """
        do {
            _ = try CSVImporter.expenses(from: csv, defaultCurrency: .usd)
            Issue.record("expected the import to be refused")
        } catch {
            guard case .invalidRows(let problems, let total) = error else { Issue.record("unexpected \(error)"); return }
            #expect(problems.map(\.line) == [4, 5, 6, 7] && total == 4)
            #expect(problems.map(\.code) == ["invalid_amount", "invalid_date", "invalid_row", "empty_category"])
        }
    }

    @Test func importParsesAmountsPerCurrencyAndDefaultsTheCurrency() throws {
        let csv = "date,amount,currency,category,note\n2026-01-01,0.1,,food,\n2026-01-02,1250,JPY,food,\"x,y\"\n"
        let expenses = try CSVImporter.expenses(from: csv, defaultCurrency: try #require(Currency(code: "EUR")))
        #expect(expenses.map(\.amount) == [10, 1250])
        #expect(expenses.map(\.currency.code) == ["EUR", "JPY"])
        #expect(expenses[1].note == "x,y")
    }

    @Test func importRefusesAWrongHeader() {
        #expect(throws: ImportError.badHeader(
            found: "when,how much", expected: "the header 'id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source' (id optional, any order; or give --map)")) {
            try CSVImporter.expenses(from: "when,how much\n", defaultCurrency: .usd)
        }
    }
}
