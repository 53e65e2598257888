import ExpenseCore
import ExpenseProtocol
import Foundation

/// An expense's fields as members of the object being coded, named and written as on the wire
/// (``ExpenseProtocol/ExpenseFields``): only the fields the draft gives, an amount as an integer, the tags as
/// an array of text, everything else as text. A new expense field needs nothing here.
struct ExpenseFieldMembers: Codable {
    var draft: ExpenseDraft
    /// Whether an optional field that is empty is left out (a record's, where absent means empty; never a
    /// queued change's, where an empty value clears the field and an absent one leaves it).
    var omittingEmpty = false

    init(_ draft: ExpenseDraft, omittingEmpty: Bool = false) {
        self.draft = draft
        self.omittingEmpty = omittingEmpty
    }

    private struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Member.self)
        var fields: [String: JSONValue] = [:]
        for name in ExpenseFields.names {
            let key = Member(stringValue: name)
            guard container.contains(key) else { continue }
            if let integer = try? container.decode(Int64.self, forKey: key) {
                fields[name] = .number(JSONNumber(integer))
            } else if let list = try? container.decode([String].self, forKey: key) {
                fields[name] = .array(list.map(JSONValue.string))
            } else {
                fields[name] = .string(try container.decode(String.self, forKey: key))
            }
        }
        switch ExpenseFields.draft(from: fields) {
        case .success(let draft): self.draft = draft
        case .failure(let rejection):
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: rejection.message))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Member.self)
        for (name, value) in ExpenseFields.json(from: draft, omittingEmpty: omittingEmpty) {
            let key = Member(stringValue: name)
            switch value {
            case .number(let number):
                guard let integer = number.int64 else {
                    throw EncodingError.invalidValue(number.text, .init(codingPath: encoder.codingPath + [key],
                                                                        debugDescription: "not an integer"))
                }
                try container.encode(integer, forKey: key)
            case .string(let text): try container.encode(text, forKey: key)
            case .array(let elements):
                let list = elements.compactMap(\.stringValue)
                guard list.count == elements.count else {
                    throw EncodingError.invalidValue(name, .init(codingPath: encoder.codingPath + [key],
                                                                 debugDescription: "a list field holds text only"))
                }
                try container.encode(list, forKey: key)
            default:
                throw EncodingError.invalidValue(name, .init(codingPath: encoder.codingPath + [key],
                                                             debugDescription: "an expense field is an integer or text"))
            }
        }
    }
}

extension ExpenseFieldMembers {
    /// An object holding `Own`'s members (its own `Codable`) and an expense's fields side by side, as the JSON
    /// cache writes its records and queue entries; `Own`'s members read through it (`entry.id`).
    @dynamicMemberLookup
    struct Beside<Own: Codable>: Codable {
        var own: Own
        var fields: ExpenseFieldMembers

        init(_ own: Own, fields: ExpenseDraft, omittingEmpty: Bool = false) {
            self.own = own
            self.fields = ExpenseFieldMembers(fields, omittingEmpty: omittingEmpty)
        }

        init(from decoder: any Decoder) throws {
            own = try Own(from: decoder)
            fields = try ExpenseFieldMembers(from: decoder)
        }

        func encode(to encoder: any Encoder) throws {
            try own.encode(to: encoder)
            try fields.encode(to: encoder)
        }

        subscript<Value>(dynamicMember path: KeyPath<Own, Value>) -> Value { own[keyPath: path] }
    }
}
