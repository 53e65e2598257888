import ExpenseCore
import FoundationEssentials

/// The `fields` object of a `put`, both ways: wire JSON to a partial ``ExpenseCore/ExpenseDraft`` (daemon)
/// and a draft to wire JSON (client).
///
/// Only the JSON *types* are checked here, so that a wrong type gets that field's own reason. Everything else
/// (currency codes, dates, lengths, control characters, required fields) is the core's
/// ``ExpenseCore/ExpenseValidator``, run by the ledger after merging the sent fields with the stored ones.
public enum ExpenseFields {
    /// The expense fields a `fields` object may hold, each declared once: its member name, how its JSON value
    /// becomes a draft's field and back. Their order is the order their type checks run (the first failure wins).
    public static let all: [WireField] = [
        WireField(.amount, integer: true, read: { value, draft in
            switch amount(from: value) {
            case .success(let minorUnits): draft.amount = minorUnits; return nil
            case .failure(let rejection): return rejection
            }
        }, write: { draft in draft.amount.map { .number(JSONNumber($0)) } }),
        WireField(.currency, read: { value, draft in
            guard let text = value.stringValue else { return MutationRejection(.invalidCurrency(value.jsonText)) }
            draft.currency = .text(text)
            return nil
        }, write: { draft in draft.currency.map { .string($0.text) } }),
        WireField(.category, read: { value, draft in
            guard let text = value.stringValue else { return wrongType(.category, "a string") }
            draft.category = text
            return nil
        }, write: { draft in draft.category.map(JSONValue.string) }),
        WireField(.date, read: { value, draft in
            guard let text = value.stringValue else { return MutationRejection(.invalidDate(value.jsonText)) }
            draft.date = .text(text)
            return nil
        }, write: { draft in draft.date.map { .string($0.text) } }),
        WireField(.note, read: { value, draft in
            guard let text = value.stringValue else { return wrongType(.note, "a string") }
            draft.note = text
            return nil
        }, write: { draft in draft.note.map(JSONValue.string) }),
        WireField(.paidBy, optional: true, read: { value, draft in
            guard let text = value.stringValue else { return MutationRejection(.invalidPaidBy(value.jsonText)) }
            draft.paidBy = text
            return nil
        }, write: { draft in draft.paidBy.map(JSONValue.string) }),
        WireField(.split, optional: true, read: { value, draft in
            guard let text = value.stringValue else { return wrongType(.split, "a string") }
            draft.split = text
            return nil
        }, write: { draft in draft.split.map(JSONValue.string) }),
        WireField(.charged, optional: true, integer: true, read: { value, draft in
            guard case .number(let number) = value, let minorUnits = number.int64 else {
                return MutationRejection(.invalidCharged(
                    "it must be a JSON integer of minor units of the ledger's currency, such as 12840, not \(Self.describe(value))"))
            }
            draft.charged = minorUnits
            return nil
        }, write: { draft in draft.charged.map { .number(JSONNumber($0)) } }),
        WireField(.tags, optional: true, list: true, read: { value, draft in
            guard case .array(let elements) = value else {
                return MutationRejection(.invalidTags("the tags must be a JSON array of strings, not \(Self.describe(value))"))
            }
            var tags: [String] = []
            tags.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let tag) = element else {
                    return MutationRejection(.invalidTags("each tag must be a JSON string, not \(Self.describe(element))"))
                }
                tags.append(tag)
            }
            draft.tags = tags
            return nil
        }, write: { draft in draft.tags.map { .array($0.map(JSONValue.string)) } }),
        WireField(.parts, optional: true, read: { value, draft in
            guard let text = value.stringValue else {
                return MutationRejection(.invalidParts("it must be a string of lines MINOR_UNITS:CATEGORY, not \(Self.describe(value))"))
            }
            draft.parts = text
            return nil
        }, write: { draft in draft.parts.map(JSONValue.string) }),
        WireField(.source, optional: true, read: { value, draft in
            guard let text = value.stringValue else { return wrongType(.source, "a string") }
            draft.source = text
            return nil
        }, write: { draft in draft.source.map(JSONValue.string) }),
    ]

    /// The slots ``MutationFields`` holds in place: one per required entry of ``all``, which come first
    /// (`MutationFieldsTests` checks the count and the order).
    public typealias RequiredSlots = InlineArray<5, JSONValue?>
    /// The slots ``MutationFields`` holds behind a reference: one per optional entry of ``all``, after the required.
    public typealias OptionalSlots = InlineArray<6, JSONValue?>

    /// A conflict group's value as a history entry holds it (Protocol.md §5.8): money as one value, the date as
    /// its text, text as itself. `group` is one of ``ExpenseCore/ExpenseField/conflictGroups``.
    public static func historyValue(of group: ExpenseField, in expense: Expense) -> HistoryEntry.Value {
        switch group {
        case .amount, .currency, .split, .charged, .parts:
            .money(amount: expense.amount, currency: expense.currency, split: expense.splitText, charged: expense.chargedValue,
                   parts: expense.partsText)
        case .category: .text(expense.category)
        case .date: .text(expense.date.description)
        case .note: .text(expense.note)
        case .paidBy: .text(expense.paidByText)
        // The set as its text form (sorted, joined by commas): a history value is money or one text.
        case .tags: .text(expense.tagsText)
        case .source: .text(expense.source)
        case .id: .text(UUIDText.lowercased(expense.id))
        }
    }

    /// Writes ``historyValue(of:in:)`` as ``HistoryEntry/Value/write(to:)`` would, without making the value:
    /// the daemon writes every group of every expense it creates.
    static func writeHistoryValue(of group: ExpenseField, in expense: Expense, to writer: inout JSONWriter) {
        switch group {
        case .amount, .currency, .split, .charged, .parts:
            HistoryEntry.Value.writeMoney(amount: expense.amount, currency: expense.currency, split: expense.splitText,
                                          charged: expense.chargedValue, parts: expense.partsText, to: &writer)
        case .category: writer.string(expense.category)
        case .date: writer.string(expense.date.description)
        case .note: writer.string(expense.note)
        case .paidBy: writer.string(expense.paidByText)
        case .tags: writer.string(expense.tagsText)
        case .source: writer.string(expense.source)
        case .id: writer.uuid(expense.id)
        }
    }

    /// Sets the fields of the conflict group a history entry names `name` to `value` (the inverse of
    /// ``historyValue(of:in:)``: an undo puts a change's `from` back); `false` when no group of an expense is
    /// named so or `value` is not what that group holds.
    public static func set(historyValue value: HistoryEntry.Value, named name: String, in draft: inout ExpenseDraft) -> Bool {
        guard let group = ExpenseField.conflictGroups.first(where: { $0.conflictGroupName == name }) else { return false }
        switch (group, value) {
        case (.amount, .money(let amount, let currency, let split, let charged, let parts)),
             (.currency, .money(let amount, let currency, let split, let charged, let parts)),
             (.split, .money(let amount, let currency, let split, let charged, let parts)),
             (.charged, .money(let amount, let currency, let split, let charged, let parts)),
             (.parts, .money(let amount, let currency, let split, let charged, let parts)):
            draft.amount = amount
            draft.currency = .value(currency)
            draft.split = split
            draft.charged = charged
            draft.parts = parts
        case (.category, .text(let text)): draft.category = text
        case (.date, .text(let text)): draft.date = .text(text)
        case (.note, .text(let text)): draft.note = text
        case (.paidBy, .text(let text)): draft.paidBy = text
        case (.tags, .text(let text)): draft.tags = ExpenseTags.parse(text)
        case (.source, .text(let text)): draft.source = text
        default: return false
        }
        return true
    }

    /// Whether the conflict group `group` is made only of optional fields (``WireField/optional``) and is empty in
    /// `expense` (no payer): a create's history entry leaves it out, as a record does.
    @inline(__always)
    public static func isEmptyOptional(_ group: ExpenseField, in expense: Expense) -> Bool {
        switch group {
        case .paidBy: expense.paidBy == nil
        case .tags: expense.tags.isEmpty
        case .source: expense.source.isEmpty
        case .id, .amount, .currency, .category, .date, .note, .split, .charged, .parts: false
        }
    }

    /// ``isEmptyOptional(_:in:)`` of an expense whose `group` has the history value `value`
    /// (``historyValue(of:in:)``): a store that keeps values, not expenses, leaves the same groups out.
    public static func isEmptyOptional(_ group: ExpenseField, value: HistoryEntry.Value) -> Bool {
        switch group {
        case .paidBy, .tags, .source: value == .text("")
        case .id, .amount, .currency, .category, .date, .note, .split, .charged, .parts: false
        }
    }

    /// The partial draft holding exactly the fields sent (its `id` is nil: the mutation carries the id).
    ///
    /// Checks, first failure wins: an unknown key (the first in byte order) is `unknown_field` naming it; then,
    /// in the order amount, currency, category, date, note: `amount` must be a JSON integer (no fraction, no
    /// exponent, so `1250.0` and `1e3` are refused) in 1 … 9007199254740991, else `invalid_amount`; `currency`
    /// not a string is `invalid_currency`; `date` not a string is `invalid_date`; `category` or `note` not a
    /// string is `invalid_text`. `null` is a wrong type like any other (omit a field to leave it unchanged).
    public static func draft(from fields: [String: JSONValue]) -> Result<ExpenseDraft, MutationRejection> {
        draft(from: MutationFields(fields))
    }

    /// ``draft(from:)-([String:JSONValue])`` of the members read one by one: the same checks in the same order
    /// (an unknown member is one of ``MutationFields/others``).
    public static func draft(from fields: MutationFields) -> Result<ExpenseDraft, MutationRejection> {
        if let first = fields.others.keys.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            return .failure(MutationRejection(reason: "unknown_field", field: first,
                                              message: "unknown field \(Self.quoted(first)); fields are \(names.joined(separator: ", "))"))
        }
        var draft = ExpenseDraft()
        for slot in MutationFields.slots {
            guard let value = fields[slot: slot] else { continue }
            if let rejection = all[slot].read(value, &draft) { return .failure(rejection) }
        }
        return .success(draft)
    }

    /// The names of the fields `draft` gives, in ``all``'s order (never `id`).
    public static func names(in draft: ExpenseDraft) -> [String] {
        all.filter { $0.write(draft) != nil }.map(\.name)
    }

    /// The wire `fields` of a draft: only its non-nil fields (never `id`). `omittingEmpty`: an optional field
    /// that is empty is left out too, as a create sends it (so that a daemon older than the field takes a create
    /// that does not use it).
    public static func json(from draft: ExpenseDraft, omittingEmpty: Bool = false) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for field in all {
            guard let value = field.write(draft) else { continue }
            if omittingEmpty && field.optional, Self.isEmpty(value) { continue }
            fields[field.name] = value
        }
        return fields
    }

    /// Whether an optional field's value means none: the empty text, 0 (an amount charged), or no element (tags).
    public static func isEmpty(_ value: JSONValue) -> Bool {
        if case .number(let number) = value { return number.int64 == 0 }
        if case .array(let elements) = value { return elements.isEmpty }
        return value.stringValue?.isEmpty == true
    }

    /// An amount: a JSON integer whose range the core checks (``ExpenseCore/Money/checkRange(_:)``).
    static func amount(from value: JSONValue) -> Result<Int64, MutationRejection> {
        guard case .number(let number) = value else {
            return .failure(MutationRejection(.invalidAmount(
                "the amount must be a JSON integer of minor units such as 1250, not \(Self.describe(value))")))
        }
        guard let minorUnits = number.int64 else {
            let isInteger = number.text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }
            return .failure(MutationRejection(.invalidAmount(isInteger
                ? "\(DisplayText.escaped(number.text)) is out of range: amounts are 1 to \(ExpenseRules.maximumAmount) minor units"
                : "\(DisplayText.escaped(number.text)) is not a JSON integer; send whole minor units such as 1250 (no fraction, no exponent)")))
        }
        do {
            try Money.checkRange(minorUnits)
        } catch let error as ValidationError {
            return .failure(MutationRejection(error))
        } catch {
            return .failure(MutationRejection(.invalidAmount("\(minorUnits) is out of range")))
        }
        return .success(minorUnits)
    }

    private static func wrongType(_ field: ExpenseField, _ expected: String) -> MutationRejection {
        MutationRejection(reason: "invalid_text", field: field.rawValue, message: "the \(field.rawValue) must be \(expected)")
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private static func quoted(_ text: String) -> String { DisplayText.quoted(text, quote: "\"") }
}

extension ExpenseFields {
    /// The one layout of a record's object, `{"amount","category","charged","currency","date","deleted","id","note",
    /// "paidBy","parts","seq","source","split","tags","version"}` (sorted; id lower case): every field under its name,
    /// and the record's own four members; `paidBy`, `parts`, `source` and `split` only when not empty, `charged`
    /// only when not 0,
    /// `tags` (an array of strings, sorted by their bytes) only when there is one (a record that is not shared, has
    /// no amount charged, no tags, no parts and no original text reads as it did before they existed).
    /// ``Record/write(to:)`` writes a record through it, and a store its pull pages straight from its rows. `row`
    /// holds the values as stored (each text valid UTF-8, the day a day: a store checks its row first); `id` is the
    /// UUID's 16 bytes, which a store reads without making a `UUID`.
    ///
    /// A pull page writes 10,000 of these, so the member names are fixed fragments (`"name":`, with the comma
    /// before it) rather than escaped one byte at a time like ``JSONWriter/key(_:)`` does, and the object is laid
    /// out at a pointer and appended once.
    ///
    /// `row` is consumed so that the values are read from storage of the function's own: read from a borrowed row,
    /// each of the eight texts copied the row's whole inline array of texts first (176 bytes a text).
    package static func writeRecordObject(to writer: inout JSONWriter, _ row: consuming RecordObjectRow, deleted: Bool,
                                          id: uuid_t, seq: Int64, version: Int64) {
        let category = row.text(ExpenseColumns.category), note = row.text(ExpenseColumns.note)
        let code = row.text(ExpenseColumns.currency), paidBy = row.text(ExpenseColumns.Value.paidBy)
        let split = row.text(ExpenseColumns.Value.split), tags = row.text(ExpenseColumns.Value.tags)
        let parts = row.text(ExpenseColumns.Value.parts), source = row.text(ExpenseColumns.Value.source)
        writer.separate()
        // Each tag is a string of its own: a pair of quotes and a comma besides what its bytes take.
        let tagCount = tags.isEmpty ? 0 : tags.reduce(1) { $1 == UInt8(ascii: ",") ? $0 + 1 : $0 }
        let maximum = maximumFixedObjectBytes
            + JSONByteCursor.maximumStringBytes(category.count + note.count + code.count)
            + optionalMembersBytes + JSONByteCursor.maximumStringBytes(paidBy.count + split.count + parts.count)
            + (tagCount == 0 ? 0 : tagsMemberBytes + JSONByteCursor.maximumStringBytes(tags.count) + 3 * tagCount)
            + (source.isEmpty ? 0 : sourceMemberBytes + JSONByteCursor.maximumStringBytes(source.count))
        writer.append(atMost: maximum) { out in
            out.raw(#"{"amount":"#); out.int64(row.int64(ExpenseColumns.amount))
            out.raw(#","category":"#); out.string(utf8: category)
            let charged = row.int64(ExpenseColumns.Value.charged)
            if charged != 0 { out.raw(#","charged":"#); out.int64(charged) }
            out.raw(#","currency":"#); out.string(utf8: code)
            out.raw(#","date":"#)
            if let date = CalendarDay(ordinal: Int(row.int64(ExpenseColumns.day))) {
                out.day(year: date.year, month: date.month, day: date.day)
            } else {
                out.raw("null")  // never: a store checks its row's day first, an expense's is a day
            }
            out.raw(#","deleted":"#); out.bool(deleted)
            out.raw(#","id":"#); out.uuid(bytes: id)
            out.raw(#","note":"#); out.string(utf8: note)
            if !paidBy.isEmpty { out.raw(#","paidBy":"#); out.string(utf8: paidBy) }
            if !parts.isEmpty { out.raw(#","parts":"#); out.string(utf8: parts) }
            out.raw(#","seq":"#); out.int64(seq)
            if !source.isEmpty { out.raw(#","source":"#); out.string(utf8: source) }
            if !split.isEmpty { out.raw(#","split":"#); out.string(utf8: split) }
            if tagCount > 0 {
                out.raw(#","tags":["#)
                var start = 0
                for end in 0...tags.count where end == tags.count || tags[end] == UInt8(ascii: ",") {
                    if start > 0 { out.byte(UInt8(ascii: ",")) }
                    out.string(utf8: UnsafeBufferPointer(rebasing: tags[start..<end]))
                    start = end + 1
                }
                out.byte(UInt8(ascii: "]"))
            }
            out.raw(#","version":"#); out.int64(version)
            out.byte(UInt8(ascii: "}"))
        }
        writer.needsComma = true
    }

    /// The most bytes of the optional members besides their strings' contents: their names with punctuation
    /// (`,"paidBy":` 10, `,"split":` 9, `,"charged":` 11, `,"parts":` 9), three pairs of quotes and an integer of
    /// at most 20 bytes.
    static let optionalMembersBytes = 10 + 9 + 11 + 9 + 6 + 20

    /// The bytes of the tags' member besides its strings: `,"tags":[` 9 and `]` 1.
    static let tagsMemberBytes = 10

    /// The bytes of the original text's member besides its string (whose contents and quotes
    /// ``JSONByteCursor/maximumStringBytes(_:)`` counts): `,"source":` 10.
    static let sourceMemberBytes = 10

    /// The most bytes of a record's object besides what ``JSONByteCursor/maximumStringBytes(_:)`` counts for
    /// its three strings together (their contents and one pair of quotes): the nine names with their
    /// punctuation and braces (86), the other two pairs of quotes (4), three integers of at most 20 bytes, the
    /// id (38), the day (12), `false` (5).
    static let maximumFixedObjectBytes = 86 + 4 + 3 * 20 + 38 + 12 + 5
}
