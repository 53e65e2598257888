import ExpenseCore
import Foundation
import Testing

@Suite("Ledger data validation")
struct LedgerDataValidatorTests {
    static func budgetFields(category: String = "food", currency: String = "EUR") -> LedgerDataFields {
        ["category": .text(category), "currency": .text(currency), "period": .text("month"), "start": .text("2026-01-01"),
         "rollover": .text("none"), "amounts": .list([.object(["from": .text("2026-01-01"), "amount": .integer(50_000)])])]
    }

    @Test("a budget's id is its (category, currency): the same on every machine, one per pair")
    func budgetIdentity() throws {
        let eur = try #require(Currency(code: "EUR"))
        let id = Budget.id(category: "food", currency: eur)
        #expect(id == Budget.id(category: "food", currency: eur))
        #expect(id != Budget.id(category: "Food", currency: eur))
        #expect(id != Budget.id(category: "food", currency: try #require(Currency(code: "USD"))))
        let budget = try LedgerDataValidator.budget(id: id, fields: Self.budgetFields())
        #expect(budget.fields == Self.budgetFields())
        #expect(throws: LedgerDataError.budgetIdMismatch) { _ = try LedgerDataValidator.budget(id: UUID(), fields: Self.budgetFields()) }
    }

    @Test("the shared values are refused with the expense's own codes; the others by name", arguments: [
        ("currency", LedgerDataValue.text("usd"), "invalid_currency"),
        ("category", .text("  "), "empty_category"),
        ("period", .text("fortnight"), "invalid_value"),
        ("start", .text("2026-02-30"), "invalid_date"),
        ("colour", .text("red"), "unknown_field"),
        ("amounts", .list([.object(["from": .text("2026-01-01"), "amount": .integer(0)])]), "invalid_amount"),
        ("amounts", .list([]), "invalid_value"),
    ])
    func budgetRejections(field: String, value: LedgerDataValue, code: String) throws {
        var fields = Self.budgetFields()
        fields[field] = value
        let error = #expect(throws: LedgerDataError.self) {
            _ = try LedgerDataValidator.validate(kind: .budget, id: Budget.id(category: "food", currency: try #require(Currency(code: "EUR"))),
                                                 fields: fields)
        }
        #expect(error?.code == code)
        #expect(error?.field == field)
    }

    @Test("a recurring rule and a setting round-trip through their fields; a zone must be real")
    func recurringAndSetting() throws {
        let fields: LedgerDataFields = ["amount": .integer(120_000), "currency": .text("EUR"), "category": .text("rent"),
                                        "every": .integer(1), "unit": .text("month"), "start": .text("2026-01-31"),
                                        "count": .integer(12), "monthEnd": .text("skip"), "skips": .list([.text("2026-03-31")])]
        let id = UUID()
        let rule = try LedgerDataValidator.recurring(id: id, fields: fields)
        #expect(rule.end == .count(12) && rule.monthEnd == .skip && rule.note == "")
        #expect(try LedgerDataValidator.recurring(id: id, fields: rule.fields) == rule)
        var both = fields
        both["until"] = .text("2026-12-31")
        #expect(throws: LedgerDataError.invalidValue(field: "count", detail: "give until or count, not both")) {
            _ = try LedgerDataValidator.recurring(id: id, fields: both)
        }
        let zone = LedgerSetting(name: .timezone, value: "Europe/Berlin")
        #expect(try LedgerDataValidator.setting(id: zone.id, fields: zone.fields) == zone)
        #expect(throws: LedgerDataError.self) {
            _ = try LedgerDataValidator.setting(id: zone.id, fields: ["name": .text("timezone"), "value": .text("Mars/Olympus")])
        }
    }
}
