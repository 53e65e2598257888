import ExpenseCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The scanner behind ``PullPageDecoder``: a cursor that expects one particular shape and gives up (`nil`)
/// at the first byte that does not fit it.
struct PullPageScanner {
    var reader: JSONReader
    /// The code and the currency ``currency(_:)`` found last.
    private var lastCurrency: (code: [UInt8], value: Currency)?

    init(reader: JSONReader) { self.reader = reader }

    /// `{"jsonrpc":"2.0","id":<integer>,"result":{…}}`, members in any order, whitespace anywhere JSON allows.
    mutating func response() -> (id: RequestID, result: PullResult)? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var version = false
        var id: RequestID?
        var result: PullResult?
        repeat {
            guard let name = memberName() else { return nil }
            switch name {
            case .jsonrpc:
                guard !version, peek == UInt8(ascii: "\""), (try? reader.parseString()) == "2.0" else { return nil }
                version = true
            case .id:
                guard id == nil, let text = integerText() else { return nil }
                id = .number(JSONNumber(text: text))
            case .result:
                guard result == nil, let page = pullResult() else { return nil }
                result = page
            default:
                return nil
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")), version, let id, let result else { return nil }
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { return nil }
        return (id, result)
    }

    /// `{"changes":[…],"cursor":<integer>,"more":<bool>}`, members in any order.
    mutating func pullResult() -> PullResult? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var changes: [Record]?
        var cursor: Int64?
        var more: Bool?
        repeat {
            guard let name = memberName() else { return nil }
            switch name {
            case .changes:
                guard changes == nil, let records = records() else { return nil }
                changes = records
            case .cursor:
                guard cursor == nil, let value = integer() else { return nil }
                cursor = value
            case .more:
                guard more == nil, let flag = boolean() else { return nil }
                more = flag
            default:
                return nil
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")), let changes, let cursor, let more else { return nil }
        return PullResult(changes: changes, cursor: cursor, more: more)
    }

    /// `[record, …]`.
    mutating func records() -> [Record]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var records: [Record] = []
        if consume(UInt8(ascii: "]")) { return records }
        records.reserveCapacity(PullRequest.limitRange.upperBound)
        repeat {
            guard let record = record() else { return nil }
            records.append(record)
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { return nil }
        return records
    }

    /// One record object: all nine members, each once, in any order; validated like ``Record/init(json:path:)``.
    /// An object laid out as the daemon writes it (``ExpenseFields/writeRecordObject(to:row:first:deleted:id:seq:version:)``)
    /// is read by its fixed fragments (``daemonLayoutRecord()``); any other, or one that path refuses, member by member.
    mutating func record() -> Record? {
        let start = reader.index
        if let record = daemonLayoutRecord() { return record }
        reader.index = start
        return memberwiseRecord()
    }

    /// A record written exactly as the daemon writes it: the nine members in sorted order, no whitespace, each
    /// name matched as one fixed fragment instead of being scanned and looked up; each value read and the record
    /// checked as ``memberwiseRecord()`` reads and checks them, so it returns that method's record or `nil`.
    ///
    /// The currency and the date, written without escapes, are read from the line's bytes as values (the
    /// currency compared with the last one read: a page is mostly in one) and are validated as values, with no
    /// draft made of them (``ExpenseCore/ExpenseValidator/validateStored(id:amount:currency:category:date:note:)``).
    mutating func daemonLayoutRecord() -> Record? {
        guard fragment(#"{"amount":"#), let amount = integer(skippingWhitespace: false),
              fragment(#","category":"#), let category = string(),
              fragment(#","currency":"#), let code = plainString(), let currency = currency(code),
              fragment(#","date":"#), let dateText = plainString(), let date = CalendarDay(utf8: dateText),
              fragment(#","deleted":"#), let deleted = boolean(skippingWhitespace: false),
              fragment(#","id":"#), let id = uuid(),
              fragment(#","note":"#), let note = string(),
              fragment(#","seq":"#), let seq = integer(skippingWhitespace: false),
              fragment(#","version":"#), let version = integer(skippingWhitespace: false),
              fragment("}"), version >= 1, seq >= 0
        else { return nil }
        guard let expense = try? ExpenseValidator.validateStored(id: id, amount: amount, currency: currency, category: category,
                                                                 date: date, note: note) else { return nil }
        return Record(expense: expense, version: version, seq: seq, deleted: deleted)
    }

    /// The bytes of a string value written without escapes, control characters or non-ASCII bytes (what
    /// ``string()`` would read as the same text); `nil` for any other value, which the general reader reads.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        let bytes = reader.bytes
        guard peek == UInt8(ascii: "\"") else { return nil }
        let start = reader.index + 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                reader.index = index + 1
                return UnsafeBufferPointer(rebasing: bytes[start..<index])
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// The currency of the code `bytes`, as ``ExpenseCore/Currency/init(code:)`` finds it; the last one found
    /// is kept, so a page in one currency looks it up once.
    mutating func currency(_ bytes: UnsafeBufferPointer<UInt8>) -> Currency? {
        if let last = lastCurrency, last.code.count == bytes.count,
           last.code.withUnsafeBufferPointer({ code in
               guard let left = code.baseAddress, let right = bytes.baseAddress else { return bytes.isEmpty }
               return memcmp(left, right, bytes.count) == 0
           }) {
            return last.value
        }
        guard let found = Currency(code: String(decoding: bytes, as: UTF8.self)) else { return nil }
        lastCurrency = (Array(bytes), found)
        return found
    }

    /// ``record()`` member by member, in any order and with any whitespace; an expense field's value is read
    /// as JSON and typed by its declaration (``ExpenseFields``), as a `put`'s fields are.
    mutating func memberwiseRecord() -> Record? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var fields = MutationFields()
        var id: UUID?
        var version: Int64?
        var seq: Int64?
        var deleted: Bool?
        repeat {
            guard let name = memberName() else { return nil }
            switch name {
            case .id:
                guard id == nil, let value = uuid() else { return nil }
                id = value
            case .field(let slot):
                guard fields[slot: slot] == nil, let value = try? reader.parseValue() else { return nil }
                reader.skipWhitespace()
                fields[slot: slot] = value
            case .version:
                guard version == nil, let value = integer() else { return nil }
                version = value
            case .seq:
                guard seq == nil, let value = integer() else { return nil }
                seq = value
            case .deleted:
                guard deleted == nil, let flag = boolean() else { return nil }
                deleted = flag
            default:
                return nil
            }
        } while consume(UInt8(ascii: ","))
        // The general path requires every member (a missing note is an error there, not the empty note).
        guard consume(UInt8(ascii: "}")), let id, fields.containsEveryRequiredField, let version, let seq, let deleted,
              case .success(let draft) = ExpenseFields.draft(from: fields) else { return nil }
        return Self.checkedRecord(draft, id: id, version: version, seq: seq, deleted: deleted)
    }

    /// The record of members read, checked like ``Record/init(json:path:)``: a version of at least 1, a seq not
    /// negative, and the expense through ``ExpenseCore/ExpenseValidator/validateStored(_:)`` with the id the
    /// scanner read as a UUID.
    private static func checkedRecord(_ draft: ExpenseDraft, id: UUID, version: Int64, seq: Int64, deleted: Bool) -> Record? {
        var draft = draft
        draft.id = .value(id)
        guard version >= 1, seq >= 0, let expense = try? ExpenseValidator.validateStored(draft) else { return nil }
        return Record(expense: expense, version: version, seq: seq, deleted: deleted)
    }
}
