import ExpenseCore
import Foundation
import Testing

@Suite("Currency table")
struct CurrencyTests {
    @Test("every table currency is found by its code, and nothing else is")
    func lookupByCode() {
        for currency in Currency.all {
            #expect(Currency(code: currency.code) == currency, "\(currency.code)")
            #expect(currency.code.utf8.count == 3 && currency.code.utf8.allSatisfy { (65...90).contains($0) })
        }
        for text in ["usd", "US", "USDD", "", "U\u{301}SD", "ÜSD", "XXXX", "AAA", "ZZZ", "US ", " USD"] {
            #expect(Currency(code: text) == nil, "\(text)")
        }
    }

    /// `/work/shared/data/iso4217.tsv`, found relative to this file; CI has it at the same relative place.
    static let isoListURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("../../../shared/data/iso4217.tsv")
        .standardizedFileURL

    static var isoListExists: Bool { FileManager.default.fileExists(atPath: isoListURL.path) }

    @Test("the table holds exactly the codes and minor units of iso4217.tsv",
          .enabled(if: isoListExists, "shared/data/iso4217.tsv not found next to the checkout; skipping the comparison"))
    func matchesISOList() throws {
        let text = try String(contentsOf: Self.isoListURL, encoding: .utf8)
        var expected: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("code\t") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            try #require(columns.count >= 3, "bad line: \(line)")
            let minorUnits = try #require(Int(String(columns[2])), "bad minor units: \(line)")
            expected[String(columns[0])] = minorUnits
        }
        #expect(expected.count > 150)
        let actual = Dictionary(uniqueKeysWithValues: Currency.all.map { ($0.code, $0.minorUnits) })
        #expect(Set(actual.keys).subtracting(expected.keys).sorted() == [], "in the table, not in the list")
        #expect(Set(expected.keys).subtracting(actual.keys).sorted() == [], "in the list, not in the table")
        for (code, minorUnits) in expected {
            #expect(actual[code] == minorUnits, "\(code)")
        }
    }

    @Test("the table is sorted, unique, three upper-case letters each")
    func tableShape() {
        let codes = Currency.all.map(\.code)
        #expect(codes == codes.sorted())
        #expect(Set(codes).count == codes.count)
        for currency in Currency.all {
            #expect(currency.code.utf8.count == 3 && currency.code.utf8.allSatisfy { (65...90).contains($0) })
            #expect([0, 2, 3, 4].contains(currency.minorUnits), "\(currency.code)")
            #expect(Currency(code: currency.code) == currency)
            #expect(currency.description == currency.code)
        }
    }

    @Test("minor units", arguments: [
        ("USD", 2), ("EUR", 2), ("JPY", 0), ("KRW", 0), ("VND", 0), ("CLP", 0),
        ("BHD", 3), ("KWD", 3), ("JOD", 3), ("OMR", 3), ("TND", 3), ("IQD", 3), ("LYD", 3), ("UYW", 4),
    ])
    func minorUnits(code: String, minorUnits: Int) throws {
        let currency = try #require(Currency(code: code))
        #expect(currency.minorUnits == minorUnits)
    }

    @Test("refused codes", arguments: [
        "usd", "Usd", "uSD", "XXX", "XTS", "XAU", "XAG", "XDR", "XSU", "XUA", "XBA", "", "US", "USDD", " USD", "USD ",
        "ＵＳＤ", "US\u{0}", "HRK", "ZZZ",
    ])
    func refused(code: String) {
        #expect(Currency(code: code) == nil)
        expectValidationError("invalid_currency", field: .currency) { try ExpenseValidator.validateCurrency(code) }
    }

    @Test("USD is the default and is in the table")
    func usd() {
        #expect(Currency.usd == Currency(code: "USD"))
        #expect(Currency.usd.minorUnits == 2)
    }

    @Test("ordering is by code")
    func ordering() throws {
        let eur = try #require(Currency(code: "EUR"))
        #expect(eur < Currency.usd)
        #expect(!(Currency.usd < eur))
    }
}
