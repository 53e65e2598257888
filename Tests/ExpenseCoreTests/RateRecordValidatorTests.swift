import ExpenseCore
import Foundation
import Testing

/// The `rate` kind's validation (``LedgerDataValidator/rate(id:fields:)``), which the client and the daemon share.
@Suite struct RateRecordValidatorTests {
    static func fields(date: String = "2026-12-04", from: String = "USD", to: String = "EUR", rate: String = "0.92") -> LedgerDataFields {
        ["date": .text(date), "from": .text(from), "to": .text(to), "rate": .text(rate)]
    }

    static func id(_ date: String = "2026-12-04", _ from: String = "USD", _ to: String = "EUR") throws -> UUID {
        ExchangeRate.id(date: try #require(CalendarDay(date)), from: try #require(Currency(code: from)), to: try #require(Currency(code: to)))
    }

    @Test("a good record reads back as the rate it holds, its fields as stored, the rate in canonical text")
    func goodRecord() throws {
        let rate = try LedgerDataValidator.rate(id: Self.id(), fields: Self.fields(rate: "0.9200"))
        #expect(rate.from == TestCurrency.usd && rate.to == TestCurrency.eur && rate.date.description == "2026-12-04")
        #expect(rate.rate == (try Rate("0.92")))
        #expect(try LedgerDataValidator.validate(kind: .rate, id: Self.id(), fields: Self.fields(rate: "0.9200")) == Self.fields())
        #expect(rate.fields == Self.fields())
        #expect(LedgerDataValidator.fieldNames(.rate) == ["date", "from", "to", "rate"])
        #expect(LedgerDataValidator.conflictField("rate") == "rate")
    }

    @Test("the id is derived from the day and the ordered pair: the same on every machine, another for anything else")
    func identity() throws {
        let id = try Self.id()
        #expect(id == (try Self.id()))
        #expect(id != (try Self.id("2026-12-05")))
        #expect(id != (try Self.id("2026-12-04", "EUR", "USD")))
        #expect(id != (try Self.id("2026-12-04", "USD", "GBP")))
        // Two machines setting the day and pair offline, with different rates, write one record: a conflict of `rate`.
        let mine = try LedgerDataValidator.rate(id: id, fields: Self.fields(rate: "0.92"))
        let theirs = try LedgerDataValidator.rate(id: id, fields: Self.fields(rate: "0.93"))
        #expect(mine.id == theirs.id && mine != theirs)
        let error = #expect(throws: LedgerDataError.rateIdMismatch) {
            _ = try LedgerDataValidator.validate(kind: .rate, id: UUID(), fields: Self.fields())
        }
        #expect(error?.code == "invalid_id" && error?.field == "id")
        #expect(throws: LedgerDataError.rateIdMismatch) {
            _ = try LedgerDataValidator.validate(kind: .rate, id: Self.id("2026-12-05"), fields: Self.fields())
        }
    }

    @Test("each bad field is refused by name, with the expense's own codes for dates and currencies", arguments: [
        ("date", LedgerDataValue.text("2026-02-30"), "invalid_date"),
        ("date", .integer(20_261_204), "invalid_value"),
        ("from", .text("usd"), "invalid_currency"),
        ("from", .text("XYZ"), "invalid_currency"),
        ("to", .text("EURO"), "invalid_currency"),
        ("to", .text("USD"), "invalid_value"),
        ("rate", .text("0"), "invalid_value"),
        ("rate", .text("-0.92"), "invalid_value"),
        ("rate", .text("9.2e-1"), "invalid_value"),
        ("rate", .text("0.9200000000001"), "invalid_value"),
        ("rate", .text("0.0000000000000001"), "invalid_value"),
        ("rate", .text("1000000000000"), "invalid_value"),
        ("rate", .integer(1), "invalid_value"),
        ("colour", .text("red"), "unknown_field"),
    ])
    func refusals(field: String, value: LedgerDataValue, code: String) throws {
        var fields = Self.fields()
        fields[field] = value
        let error = #expect(throws: LedgerDataError.self) {
            _ = try LedgerDataValidator.validate(kind: .rate, id: try Self.id(), fields: fields)
        }
        #expect(error?.code == code, "\(String(describing: error))")
        #expect(error?.field == field)
    }

    @Test("every field is required", arguments: ["date", "from", "to", "rate"])
    func missing(field: String) throws {
        var fields = Self.fields()
        fields[field] = nil
        #expect(throws: LedgerDataError.missingField(field)) {
            _ = try LedgerDataValidator.validate(kind: .rate, id: try Self.id(), fields: fields)
        }
    }

    @Test("the rate kind keeps the index it was declared at (its index is stored); kinds after it are newer")
    func declaredLast() {
        #expect(RecordKind.allCases.firstIndex(of: .rate) == 6)
        #expect(RecordKind.additional.contains(.rate))
    }
}
