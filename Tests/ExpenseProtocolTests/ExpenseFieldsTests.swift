import ExpenseCore
import Testing
@testable import ExpenseProtocol

private func fields(_ json: String) throws -> [String: JSONValue] {
    try #require(try JSONParser.parse(Array(json.utf8)).objectValue)
}

@Suite struct ExpenseFieldsTests {
    @Test func partialDraft() throws {
        let draft = try ExpenseFields.draft(from: fields(#"{"amount":1250,"note":""}"#)).get()
        #expect(draft == ExpenseDraft(amount: 1250, note: ""))
        let full = try ExpenseFields.draft(from: fields(#"{"amount":9007199254740991,"currency":"usd","category":"  food ","date":"2026-02-30","note":"x"}"#)).get()
        // Type checks only: the core validates codes, dates and trimming later.
        #expect(full == ExpenseDraft(amount: 9_007_199_254_740_991, currency: "usd", category: "  food ", date: "2026-02-30", note: "x"))
        #expect(try ExpenseFields.draft(from: [:]).get() == ExpenseDraft())
    }

    @Test(arguments: [
        (#"{"amount":12.5}"#, "invalid_amount", "amount"), (#"{"amount":"1250"}"#, "invalid_amount", "amount"),
        (#"{"amount":true}"#, "invalid_amount", "amount"), (#"{"amount":0}"#, "invalid_amount", "amount"),
        (#"{"amount":-5}"#, "invalid_amount", "amount"), (#"{"amount":9007199254740992}"#, "invalid_amount", "amount"),
        (#"{"amount":1e3}"#, "invalid_amount", "amount"), (#"{"amount":1250.0}"#, "invalid_amount", "amount"),
        (#"{"amount":null}"#, "invalid_amount", "amount"), (#"{"amount":-0}"#, "invalid_amount", "amount"),
        (#"{"amount":99999999999999999999999}"#, "invalid_amount", "amount"),
        (#"{"currency":840}"#, "invalid_currency", "currency"), (#"{"currency":null}"#, "invalid_currency", "currency"),
        (#"{"date":20261130}"#, "invalid_date", "date"), (#"{"date":["2026-11-30"]}"#, "invalid_date", "date"),
        (#"{"category":7}"#, "invalid_text", "category"), (#"{"note":{}}"#, "invalid_text", "note"),
        (#"{"note":false}"#, "invalid_text", "note"),
        (#"{"amount":1,"colour":"red"}"#, "unknown_field", "colour"), (#"{"id":"x"}"#, "unknown_field", "id"),
        // Unknown keys are reported before type errors, the first in byte order.
        (#"{"amount":"x","zeta":1,"beta":2}"#, "unknown_field", "beta"),
        // Type errors in field order: amount before currency.
        (#"{"currency":1,"amount":"x"}"#, "invalid_amount", "amount"),
    ])
    func typeErrors(json: String, reason: String, field: String) throws {
        guard case .failure(let rejection) = ExpenseFields.draft(from: try fields(json)) else {
            Issue.record("accepted \(json)"); return
        }
        #expect(rejection.reason == reason)
        #expect(rejection.field == field)
        #expect(!rejection.message.isEmpty)
    }

    @Test func inverse() throws {
        let draft = ExpenseDraft(id: "ignored", amount: 1250, currency: "USD", category: "food", date: "2026-11-30", note: nil)
        let json = ExpenseFields.json(from: draft)
        #expect(JSONValue.object(json).jsonText == #"{"amount":1250,"category":"food","currency":"USD","date":"2026-11-30"}"#)
        var expected = draft
        expected.id = nil
        #expect(try ExpenseFields.draft(from: json).get() == expected)
    }
}
