import ExpenseCore
import Foundation

extension Record {
    /// Writes `{"amount","category","currency","date","deleted","id","note","seq","version"}` (sorted; id lower case).
    ///
    /// A pull page writes 10,000 of these, so the member names are written as fixed fragments (`"name":`, with
    /// the comma before it) rather than escaped one byte at a time like ``JSONWriter/key(_:)`` does.
    public func write(to writer: inout JSONWriter) {
        var category = expense.category, note = expense.note
        category.withUTF8 { category in
            note.withUTF8 { note in
                Self.writeObject(to: &writer, amount: expense.amount, category: category, currency: expense.currency,
                                 date: expense.date, deleted: deleted, id: expense.id.uuid, note: note, seq: seq, version: version)
            }
        }
    }

    /// The one layout of a record's object, from its values: ``write(to:)``'s, and a store's that writes pull
    /// pages straight from its rows (`category` and `note` as valid UTF-8, as a `String` holds them; `id` as the
    /// UUID's 16 bytes, which a store reads without making a `UUID`).
    public static func writeObject(to writer: inout JSONWriter, amount: Int64, category: UnsafeBufferPointer<UInt8>,
                                   currency: Currency, date: CalendarDay, deleted: Bool, id: uuid_t,
                                   note: UnsafeBufferPointer<UInt8>, seq: Int64, version: Int64) {
        // One reservation for the whole object (the bytes are laid out at a pointer, then appended once): a
        // first sync writes a million of these.
        var code = currency.code
        code.withUTF8 { code in
            writer.separate()
            let maximum = Self.maximumFixedObjectBytes
                + JSONByteCursor.maximumStringBytes(category.count + note.count + code.count)
            writer.append(atMost: maximum) { out in
                out.raw(#"{"amount":"#); out.int64(amount)
                out.raw(#","category":"#); out.string(utf8: category)
                out.raw(#","currency":"#); out.string(utf8: code)
                out.raw(#","date":"#); out.day(year: date.year, month: date.month, day: date.day)
                out.raw(#","deleted":"#); out.bool(deleted)
                out.raw(#","id":"#); out.uuid(bytes: id)
                out.raw(#","note":"#); out.string(utf8: note)
                out.raw(#","seq":"#); out.int64(seq)
                out.raw(#","version":"#); out.int64(version)
                out.byte(UInt8(ascii: "}"))
            }
            writer.needsComma = true
        }
    }

    /// The most bytes of a record's object besides what ``JSONByteCursor/maximumStringBytes(_:)`` counts for
    /// its three strings together (their contents and one pair of quotes): the nine names with their
    /// punctuation and braces (86), the other two pairs of quotes (4), three integers of at most 20 bytes, the
    /// id (38), the day (12), `false` (5).
    static let maximumFixedObjectBytes = 86 + 4 + 3 * 20 + 38 + 12 + 5

    /// Reads a record sent by the daemon; its expense goes through the core's validation like any outside input
    /// (``ExpenseValidator/validateStored(_:)``: a record stored before the byte limits is read as it is).
    /// - Throws: ``ProtocolDecodingError`` naming the member under `path`.
    public init(json: JSONValue, path: String = "record") throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        // Every expense field is required, each typed by its one declaration (``ExpenseFields``).
        var fields = MutationFields()
        for field in ExpenseFields.all { fields[field.name] = try reader.value(field.name) }
        var draft: ExpenseDraft
        switch ExpenseFields.draft(from: fields) {
        case .success(let typed): draft = typed
        case .failure(let rejection): throw .invalidMember(path: reader.sub(rejection.field ?? ""), detail: rejection.message)
        }
        draft.id = .text(try reader.string("id"))
        let expense: Expense
        do {
            // Stored before the byte limits, a record is still read as it is (Protocol.md §6).
            expense = try ExpenseValidator.validateStored(draft)
        } catch let error as ValidationError {
            throw .invalidMember(path: reader.sub(error.field.rawValue), detail: error.description)
        } catch {
            throw .invalidMember(path: path, detail: "\(error)")
        }
        let version = try reader.int64("version")
        guard version >= 1 else { throw .invalidMember(path: reader.sub("version"), detail: "a version is at least 1") }
        let seq = try reader.int64("seq")
        guard seq >= 0 else { throw .invalidMember(path: reader.sub("seq"), detail: "a seq is not negative") }
        self.init(expense: expense, version: version, seq: seq, deleted: try reader.bool("deleted"))
    }

    /// The record as a JSON value (for tests and tools; hot paths use ``write(to:)``).
    public var json: JSONValue {
        // Written by our own writer, so parsing it back cannot fail.
        var writer = JSONWriter()
        write(to: &writer)
        return (try? JSONParser.parse(writer.bytes)) ?? .null
    }
}
