import ExpenseCore
import TestSupport
import Testing
@testable import ExpenseProtocol

/// `MutationFields` (a put's `fields` member by member) against the dictionary it stands for: the same object
/// both ways, equal exactly when the dictionaries are, and the same draft or refusal from `ExpenseFields`.
@Suite struct MutationFieldsTests {
    private static let names = ["amount", "currency", "category", "date", "note", "colour", "Amount", "amount ", "", "period", "limit"]
    private static let values: [JSONValue] = [.null, .bool(true), .number(JSONNumber(1250)), .number(JSONNumber(text: "12.5")),
                                              .string("USD"), .string("food"), .string("2026-11-30"), .string("café"),
                                              .array([.string("x")]), .object(["amount": .number(JSONNumber(1))])]

    private static func seededDictionaries() -> [[String: JSONValue]] {
        var random = SeededGenerator(seed: 0x6F1E1D5)
        var dictionaries: [[String: JSONValue]] = [[:]]
        for _ in 0..<2000 {
            var dictionary: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                dictionary[names[Int.random(in: 0..<names.count, using: &random)]] = values[Int.random(in: 0..<values.count, using: &random)]
            }
            dictionaries.append(dictionary)
        }
        return dictionaries
    }

    /// Each expense field but the id is declared once on the wire, with a slot of its own.
    @Test func everyFieldHasOneWireDeclarationAndASlot() throws {
        #expect(ExpenseFields.all.map(\.field) == ExpenseField.allCases.filter { $0 != .id })
        // The required fields first, in place; the optional ones after them, behind a reference.
        #expect(ExpenseFields.RequiredSlots.count == ExpenseFields.all.filter { !$0.optional }.count)
        #expect(ExpenseFields.OptionalSlots.count == ExpenseFields.all.filter(\.optional).count)
        #expect(ExpenseFields.all.prefix(ExpenseFields.RequiredSlots.count).allSatisfy { !$0.optional })
        // A create's history leaves out exactly the groups made only of optional fields, when empty.
        let plain = try #require(try? ExpenseValidator.validate(ExpenseDraft(id: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", amount: 1,
                                                                             currency: "USD", category: "c", date: "2026-01-01")))
        for group in ExpenseField.conflictGroups {
            let optional = group.conflictGroup.allSatisfy { field in ExpenseFields.all.first { $0.field == field }?.optional ?? false }
            #expect(ExpenseFields.isEmptyOptional(group, in: plain) == optional, "\(group)")
        }
        for (index, field) in ExpenseFields.all.enumerated() {
            #expect(ExpenseFields.slot(named: field.name) == index)
            #expect(ExpenseFields.slot(of: field.field) == index)
        }
        #expect(ExpenseFields.slot(of: .id) == nil)
    }

    @Test func theDictionaryRoundTripsAndEqualityIsTheDictionarys() {
        let dictionaries = Self.seededDictionaries()
        for (index, dictionary) in dictionaries.enumerated() {
            let fields = MutationFields(dictionary)
            #expect(fields.dictionary == dictionary)
            for name in Self.names { #expect(fields[name] == dictionary[name]) }
            for field in ExpenseField.allCases { #expect(fields.contains(field) == (field != .id && dictionary[field.rawValue] != nil)) }
            let other = dictionaries[(index * 7 + 3) % dictionaries.count]
            #expect((MutationFields(other) == fields) == (other == dictionary))
            var mutation = Mutation(mutationId: 1, type: .put, id: UUIDText.parse("1b080588-94c4-4b6c-9a8e-3f1d2c3b4a59") ?? .init(),
                                    baseVersion: 0, fields: dictionary)
            #expect(mutation.sentFields == fields && mutation.fields == dictionary)
            mutation.fields = other
            #expect(mutation.sentFields == MutationFields(other))
        }
    }

    /// The slots, the required and the optional fields' each held behind one reference, read and compare as values,
    /// and a copy keeps its values when the original changes one of them (copied on write).
    @Test func slotsAreValuesOfTheirOwn() {
        var fields = MutationFields(["amount": .number(JSONNumber(5)), "tags": .array([.string("x")]), "source": .string("BANK")])
        let copy = fields
        fields["source"] = .string("OTHER")
        fields["paidBy"] = .string("")
        fields["amount"] = .number(JSONNumber(7))
        fields["note"] = .string("lunch")
        #expect(copy["source"] == .string("BANK") && copy["paidBy"] == nil && copy.dictionary.count == 3)
        #expect(copy["amount"] == .number(JSONNumber(5)) && copy["note"] == nil && !copy.contains(.note))
        #expect(fields["source"] == .string("OTHER") && fields.contains(.paidBy) && fields.dictionary.count == 5)
        #expect(fields["amount"] == .number(JSONNumber(7)) && fields["note"] == .string("lunch"))
        #expect(copy != fields && copy == MutationFields(copy.dictionary))
        fields["source"] = .string("BANK")
        fields["paidBy"] = nil
        fields["amount"] = .number(JSONNumber(5))
        fields["note"] = nil
        #expect(copy == fields && copy.hashValue == fields.hashValue)
        var plain = MutationFields(["amount": .number(JSONNumber(5))])
        plain["tags"] = nil
        plain["note"] = nil
        #expect(plain == MutationFields(["amount": .number(JSONNumber(5))]) && !plain.contains(.tags) && !plain.contains(.note))
        // A copy emptied of its required fields equals a value that never had any, whichever box each holds.
        var emptied = copy
        emptied["amount"] = nil
        #expect(emptied == MutationFields(["tags": .array([.string("x")]), "source": .string("BANK")]))
        #expect(copy["amount"] == .number(JSONNumber(5)) && !emptied.containsEveryRequiredField)
    }

    /// The rule as it was written on the dictionary: the first unknown key in byte order is `unknown_field`,
    /// then each field's type in the order amount, currency, category, date, note.
    @Test func theDraftIsTheDictionaryRules() {
        for dictionary in Self.seededDictionaries() {
            let drafted = ExpenseFields.draft(from: MutationFields(dictionary))
            let unknown = dictionary.keys.filter { !ExpenseFields.names.contains($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            if let first = unknown.first {
                guard case .failure(let rejection) = drafted else { Issue.record("\(dictionary) was accepted"); continue }
                #expect(rejection.reason == "unknown_field" && rejection.field == first)
                continue
            }
            var draft = ExpenseDraft()
            var refusal: String?
            for name in ExpenseFields.names {
                guard let value = dictionary[name], refusal == nil else { continue }
                switch (name, value) {
                case ("amount", .number(let number)) where number.int64.map { (1...ExpenseRules.maximumAmount).contains($0) } == true:
                    draft.amount = number.int64
                case ("amount", _): refusal = "amount"
                case ("currency", .string(let text)): draft.currency = .text(text)
                case ("category", .string(let text)): draft.category = text
                case ("date", .string(let text)): draft.date = .text(text)
                case ("note", .string(let text)): draft.note = text
                default: refusal = name
                }
            }
            switch drafted {
            case .success(let value): #expect(refusal == nil && value == draft, "\(dictionary)")
            case .failure(let rejection): #expect(rejection.field == refusal, "\(dictionary)")
            }
            #expect(ExpenseFields.draft(from: dictionary) == drafted)
        }
    }
}
