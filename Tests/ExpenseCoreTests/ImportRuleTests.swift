import ExpenseCore
import Foundation
import Testing

/// The `rule` kind's validation (``LedgerDataValidator/importRule(id:fields:)``), shared by the client and the
/// daemon, and how rules run on an expense (``ImportRule/run(_:on:originalText:)``).
@Suite struct ImportRuleTests {
    static let id = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))

    static func fields(conditions: [LedgerDataFields] = [["field": .text("text"), "regex": .text("rewe")]],
                       actions: [LedgerDataFields] = [["action": .text("setCategory"), "value": .text("groceries")]],
                       match: String = "all") -> LedgerDataFields {
        ["position": .integer(1 << 32), "match": .text(match), "conditions": .list(conditions.map { .object($0) }),
         "actions": .list(actions.map { .object($0) })]
    }

    static func expense(_ amount: Int64 = 2345, category: String = "misc", note: String = "REWE sagt danke") throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(id: "0a0b0c0d-0000-4000-8000-000000000001", amount: amount, currency: "EUR",
                                                   category: category, date: "2026-12-02", note: note))
    }

    @Test("a good record reads back as stored; every condition and action shape round-trips")
    func roundTrip() throws {
        let fields = Self.fields(
            conditions: [["field": .text("note"), "equals": .text("Kiosk")], ["field": .text("amount"), "from": .text("10"), "to": .text("50.5")],
                         ["field": .text("date"), "from": .text("2026-01-01")], ["field": .text("amount"), "regex": .text("^\\d+\\.99$")]],
            actions: [["action": .text("setNote"), "value": .text("x")], ["action": .text("addTag"), "value": .text("trip")],
                      ["action": .text("part"), "category": .text("household"), "amount": .text("12.3")],
                      ["action": .text("setSplit"), "value": .text("shares:0a0b0c0d-0000-4000-8000-000000000001=1")]],
            match: "any")
        let rule = try LedgerDataValidator.importRule(id: Self.id, fields: fields)
        #expect(rule.matchesAny && rule.conditions.count == 4 && rule.actions.count == 4)
        #expect(try LedgerDataValidator.validate(kind: .rule, id: Self.id, fields: fields) == fields)
    }

    @Test("refusals: a bad regex names its position, and bad shapes name their field", arguments: [
        (fields(conditions: [["field": .text("text"), "regex": .text("rewe(")]]), "invalid_regex", "regex: unclosed group at position 5"),
        (fields(conditions: [["field": .text("payee"), "regex": .text("x")]]), "invalid_value", nil),
        (fields(conditions: []), "invalid_value", nil),
        (fields(conditions: [["field": .text("amount"), "from": .text("20"), "to": .text("10")]]), "invalid_value", nil),
        (fields(actions: [["action": .text("setCategory"), "value": .text("")]]), "empty_category", nil),
        (fields(actions: [["action": .text("setSplit"), "value": .text("exact:0a0b0c0d-0000-4000-8000-000000000001=100")]]), "invalid_value", nil),
        (fields(actions: [["action": .text("addTag"), "value": .text(String(repeating: "t", count: 33))]]), "invalid_value", nil),
        (fields(match: "some"), "invalid_value", nil),
    ] as [(LedgerDataFields, String, String?)])
    func refusals(fields: LedgerDataFields, code: String, message: String?) {
        do {
            _ = try LedgerDataValidator.importRule(id: Self.id, fields: fields)
            Issue.record("accepted")
        } catch {
            #expect(error.code == code, "\(error)")
            if let message { #expect(error.message == message) }
        }
    }

    @Test("rules run in position order, each seeing the one before; the last assignment wins; text reads the original")
    func chain() throws {
        let groceries = ImportRule(id: UUID(), name: "groceries", position: 10, conditions: [.matches(.text, try Pattern("^rewe"))],
                                   actions: [.setCategory("groceries")])
        let big = ImportRule(id: UUID(), name: "big", position: 20, conditions: [.equals(.category, "GROCERIES"), .amount(from: RuleAmount("20"), to: nil)],
                             actions: [.setNote("weekly"), .setCategory("food")])
        let late = ImportRule(id: UUID(), position: 30, conditions: [.matches(.text, try Pattern("rewe")), .matches(.note, try Pattern("rewe"))],
                              actions: [.setCategory("never")])
        let outcome = try ImportRule.run([late, big, groceries], on: try Self.expense(), originalText: "REWE sagt danke")
        #expect(outcome.expense.category == "food" && outcome.expense.note == "weekly")
        #expect(outcome.changedBy.map(\.name) == ["groceries", "big"], "late no longer sees rewe in the note")
        let small = try ImportRule.run([big, groceries], on: try Self.expense(1999), originalText: "REWE")
        #expect(small.expense.category == "groceries" && small.changedBy.count == 1)
        let any = ImportRule(id: UUID(), position: 1, matchesAny: true, conditions: [.equals(.amount, "1"), .date(from: nil, to: CalendarDay("2026-12-02"))],
                             actions: [.setCategory("any")])
        #expect(try ImportRule.run([any], on: try Self.expense(), originalText: "").expense.category == "any")
        let tag = ImportRule(id: UUID(), position: 1, conditions: [.equals(.note, "x")], actions: [.addTag("trip"), .addTag("Trip")])
        #expect(try ImportRule.run([tag], on: try Self.expense(), originalText: "").expense.tags == [], "the condition does not hold")
        #expect(try ImportRule.run([tag, tag], on: try Self.expense(note: "x"), originalText: "").expense.tags == ["Trip", "trip"],
                "tags compared by bytes, each added once however many rules add it")
        let home = ImportRule(id: UUID(), position: 1, conditions: [.equals(.note, "x")],
                              actions: [.part(category: "home", amount: try #require(RuleAmount("1"))),
                                        .part(category: "home", amount: try #require(RuleAmount("2.5")))])
        let parted = try ImportRule.run([home], on: try Self.expense(note: "x"), originalText: "").expense
        #expect(parted.partsText == "250:home", "the second part of one category replaces the first: \(parted.partsText)")
        let fine = ImportRule(id: UUID(), position: 1, conditions: [.equals(.note, "x")], actions: [.part(category: "home", amount: try #require(RuleAmount("0.001")))])
        #expect(throws: ImportRuleError.self, "more decimals than EUR has: refused, never rounded") {
            try ImportRule.run([fine], on: try Self.expense(note: "x"), originalText: "")
        }
        let all = ImportRule(id: UUID(), position: 1, conditions: [.equals(.note, "x")], actions: [.part(category: "home", amount: try #require(RuleAmount("23.45")))])
        #expect(throws: ImportRuleError.self, "a part of the whole amount leaves its category nothing") {
            try ImportRule.run([all], on: try Self.expense(note: "x"), originalText: "")
        }
    }

    @Test("positions: after the last with a gap, between two neighbours, none between adjacent integers")
    func positions() {
        #expect(ImportRule.position(after: nil) == ImportRule.positionGap)
        #expect(ImportRule.position(after: 5) == 5 + ImportRule.positionGap)
        #expect(ImportRule.position(between: 10, and: 20) == 15)
        #expect(ImportRule.position(between: 10, and: 11) == nil)
        #expect(ImportRule.position(between: nil, and: 10) == 10 - ImportRule.positionGap)
        #expect(ImportRule.position(after: Int64.max - 1) > 0)
    }
}

extension ImportRuleTests {
    @Test("the rule kind is declared last: its index is stored in the history")
    func declaredLast() {
        #expect(RecordKind.allCases.last == .rule)
        #expect(RecordKind.additional.contains(.rule))
    }
}
