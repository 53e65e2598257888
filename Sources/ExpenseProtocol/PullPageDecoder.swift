import ExpenseCore
import Foundation

/// Reads a `pull` response line straight into ``Record``s, without building the `JSONValue` tree (a
/// dictionary per record) that the general path builds: a first sync reads a million records this way.
///
/// The contract, which `PullPageDecoderTests` checks on random pages: for any line, ``decode(_:)`` returns
/// either `nil` or exactly what the general path (``RPCClientCodec/parse(_:)-(ArraySlice<UInt8>)`` then
/// ``RPCIncoming/decodeResult(as:)`` with ``PullResult``) returns for that line, with the response's id.
/// It returns `nil` for anything it does not expect — a notification, an error response, a string id,
/// unknown, repeated or escaped member names, a number with a fraction or an exponent, a record the core's
/// validator refuses — and the caller then takes the general path, which yields the same result or the
/// precise error. Strings go through the general parser's own string reader (escapes, UTF-8 checks), and
/// records through ``ExpenseCore/ExpenseValidator/validate(_:)`` like ``Record/init(json:path:)``.
public enum PullPageDecoder {
    /// The id and result of a successful `pull` response, or `nil` (use the general path).
    public static func decode(_ line: ArraySlice<UInt8>) -> (id: RequestID, result: PullResult)? {
        line.withUnsafeBufferPointer { buffer in
            var scanner = PullPageScanner(reader: JSONReader(bytes: buffer))
            return scanner.response()
        }
    }

    /// ``decode(_:)`` over a whole array.
    public static func decode(_ line: [UInt8]) -> (id: RequestID, result: PullResult)? {
        decode(line[...])
    }

    /// The cursor a pull response line announces for its next page, read from the line's end alone: the
    /// cursor when the line ends `,"cursor":<digits>,"more":true}}` (as the daemon writes it), else `nil`.
    ///
    /// Only a guess, for asking for the next page before this one is decoded: the decoded page's own cursor
    /// decides (a request sent on a wrong guess has its answer dropped).
    public static func announcedCursor(_ line: [UInt8]) -> Int64? {
        let suffix = Array(#","more":true}}"#.utf8)
        let name = Array(#","cursor":"#.utf8)
        guard line.count > suffix.count + name.count, line.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        var start = line.count - suffix.count
        let end = start
        while start > 0, line[start - 1] &- UInt8(ascii: "0") < 10, end - start < 19 { start -= 1 }
        guard start < end, start >= name.count, line[(start - name.count)..<start].elementsEqual(name) else { return nil }
        return Int64(String(decoding: line[start..<end], as: UTF8.self))
    }
}

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
    /// An object laid out as the daemon writes it (``Record/writeObject(to:amount:category:currency:date:deleted:id:note:seq:version:)``)
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
    /// currency compared with the last one read: a page is mostly in one) and checked by
    /// ``ExpenseCore/ExpenseValidator/validate(_:id:currency:date:)``; a record beyond the byte limits is left to
    /// ``memberwiseRecord()``.
    mutating func daemonLayoutRecord() -> Record? {
        var draft = ExpenseDraft()
        guard fragment(#"{"amount":"#), let amount = integer(skippingWhitespace: false),
              fragment(#","category":"#), let category = string(),
              fragment(#","currency":"#), let code = plainString(), let currency = currency(code),
              fragment(#","date":"#), let dateText = plainString(), let date = CalendarDay(utf8: dateText),
              fragment(#","deleted":"#), let deleted = boolean(skippingWhitespace: false),
              fragment(#","id":"#), let id = uuid(),
              fragment(#","note":"#), let note = string(),
              fragment(#","seq":"#), let seq = integer(skippingWhitespace: false),
              fragment(#","version":"#), let version = integer(skippingWhitespace: false),
              fragment("}"), version >= 1, seq >= 0,
              category.utf8.count <= ExpenseRules.maximumCategoryBytes, note.utf8.count <= ExpenseRules.maximumNoteBytes
        else { return nil }
        draft.amount = amount
        draft.category = category
        draft.note = note
        guard let expense = try? ExpenseValidator.validate(draft, id: id, currency: currency, date: date) else { return nil }
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

    /// ``record()`` member by member, in any order and with any whitespace.
    mutating func memberwiseRecord() -> Record? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var draft = ExpenseDraft()
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
            case .amount:
                guard draft.amount == nil, let value = integer() else { return nil }
                draft.amount = value
            case .currency:
                guard draft.currency == nil, let text = string() else { return nil }
                draft.currency = text
            case .category:
                guard draft.category == nil, let text = string() else { return nil }
                draft.category = text
            case .date:
                guard draft.date == nil, let text = string() else { return nil }
                draft.date = text
            case .note:
                guard draft.note == nil, let text = string() else { return nil }
                draft.note = text
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
        guard consume(UInt8(ascii: "}")), let id, draft.amount != nil, draft.currency != nil, draft.category != nil,
              draft.date != nil, draft.note != nil, let version, let seq, let deleted else { return nil }
        return Self.checkedRecord(draft, id: id, version: version, seq: seq, deleted: deleted)
    }

    /// The record of members read, checked like ``Record/init(json:path:)``: a version of at least 1, a seq not
    /// negative, and the expense through ``validateStored(_:id:category:note:)``.
    private static func checkedRecord(_ draft: ExpenseDraft, id: UUID, version: Int64, seq: Int64, deleted: Bool) -> Record? {
        guard version >= 1, seq >= 0, let category = draft.category, let note = draft.note,
              let expense = try? validateStored(draft, id: id, category: category, note: note) else { return nil }
        return Record(expense: expense, version: version, seq: seq, deleted: deleted)
    }

    /// ``ExpenseCore/ExpenseValidator/validateStored(_:)`` of `draft` with the id `id`, which the scanner read
    /// as a UUID (no `String` to parse back): within the byte limits of category and note, the only rules
    /// `validateStored` leaves out, it is ``ExpenseCore/ExpenseValidator/validate(_:id:)``; beyond them, the
    /// id goes back into the draft as text.
    private static func validateStored(_ draft: ExpenseDraft, id: UUID, category: String, note: String) throws -> Expense {
        if category.utf8.count <= ExpenseRules.maximumCategoryBytes, note.utf8.count <= ExpenseRules.maximumNoteBytes {
            return try ExpenseValidator.validate(draft, id: id)
        }
        var withId = draft
        withId.id = UUIDText.lowercased(id)
        return try ExpenseValidator.validateStored(withId)
    }

    // MARK: - Tokens

    /// The member names this scanner knows; any other name is `nil` (and so the general path).
    enum Name {
        case jsonrpc, id, result, changes, cursor, more, amount, category, currency, date, deleted, note, seq, version
    }

    /// `"name"` then `:`. A name with an escape or a byte outside printable ASCII is not one of ours as written.
    mutating func memberName() -> Name? {
        reader.skipWhitespace()
        guard peek == UInt8(ascii: "\"") else { return nil }
        let bytes = reader.bytes
        reader.index += 1
        let start = reader.index
        while reader.index < bytes.count, bytes[reader.index] != UInt8(ascii: "\"") {
            guard bytes[reader.index] >= 0x20, bytes[reader.index] < 0x80, bytes[reader.index] != UInt8(ascii: "\\") else {
                return nil
            }
            reader.index += 1
        }
        guard reader.index < bytes.count else { return nil }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<reader.index])
        reader.index += 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        reader.skipWhitespace()
        return Self.name(name)
    }

    /// The one candidate a name's length and first byte (and, for the two 8-byte `c` names, its second byte)
    /// allow, then compared in full: a record's nine names cost one comparison each, not a walk of the table.
    private static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        guard bytes.count >= 2 else { return nil }
        let candidate: (text: StaticString, name: Name)
        switch (bytes.count, bytes[0]) {
        case (2, UInt8(ascii: "i")): candidate = ("id", .id)
        case (6, UInt8(ascii: "a")): candidate = ("amount", .amount)
        case (8, UInt8(ascii: "c")):
            candidate = bytes[1] == UInt8(ascii: "u") ? ("currency", .currency) : ("category", .category)
        case (4, UInt8(ascii: "d")): candidate = ("date", .date)
        case (4, UInt8(ascii: "n")): candidate = ("note", .note)
        case (7, UInt8(ascii: "v")): candidate = ("version", .version)
        case (3, UInt8(ascii: "s")): candidate = ("seq", .seq)
        case (7, UInt8(ascii: "d")): candidate = ("deleted", .deleted)
        case (7, UInt8(ascii: "c")): candidate = ("changes", .changes)
        case (6, UInt8(ascii: "c")): candidate = ("cursor", .cursor)
        case (4, UInt8(ascii: "m")): candidate = ("more", .more)
        case (7, UInt8(ascii: "j")): candidate = ("jsonrpc", .jsonrpc)
        case (6, UInt8(ascii: "r")): candidate = ("result", .result)
        default: return nil
        }
        // memcmp: the generic `elementsEqual` is not specialised here and cost more than the table walk it replaced.
        guard let start = bytes.baseAddress, memcmp(candidate.text.utf8Start, start, bytes.count) == 0 else { return nil }
        return candidate.name
    }

    /// An id value: a UUID in either case, read from the line's bytes when the string is written without
    /// escapes (as the daemon writes it), else through ``string()``; `nil` when it is not a UUID (the general
    /// path refuses it).
    mutating func uuid() -> UUID? {
        let bytes = reader.bytes
        let start = reader.index + 1
        if peek == UInt8(ascii: "\""), start + 36 < bytes.count, bytes[start + 36] == UInt8(ascii: "\"") {
            // A backslash or quote among the 36 bytes is not a hexadecimal digit: parse refuses it.
            guard let id = UUIDText.parse(utf8: UnsafeBufferPointer(rebasing: bytes[start..<(start + 36)])) else { return nil }
            reader.index = start + 37
            return id
        }
        guard let text = string() else { return nil }
        return UUIDText.parse(text)
    }

    /// A string value, read by the general parser's string reader.
    mutating func string() -> String? {
        guard peek == UInt8(ascii: "\"") else { return nil }
        return try? reader.parseString()
    }

    /// The text of an integer exactly as ``JSONNumber/int64`` would accept it (`-`? then `0` or a non-zero
    /// digit and digits), fitting `Int64`; a fraction, an exponent or anything else is `nil`.
    mutating func integerText() -> String? {
        let start = reader.index
        guard integer(skippingWhitespace: false) != nil else { return nil }
        let text = String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[start..<reader.index]), as: UTF8.self)
        reader.skipWhitespace()
        return text
    }

    /// See ``integerText()``.
    mutating func integer(skippingWhitespace: Bool = true) -> Int64? {
        let bytes = reader.bytes
        var index = reader.index
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let first = index
        // Nineteen digits always fit a UInt64; a twentieth means a magnitude past Int64 (or a leading zero),
        // either way not an Int64 as JSONNumber reads one.
        var magnitude: UInt64 = 0
        while index < bytes.count, index - first < 19, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        let digits = index - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        reader.index = index
        if skippingWhitespace { reader.skipWhitespace() }
        return value
    }

    /// `true` or `false`.
    mutating func boolean(skippingWhitespace: Bool = true) -> Bool? {
        if fragment("true") {
            if skippingWhitespace { reader.skipWhitespace() }
            return true
        }
        if fragment("false") {
            if skippingWhitespace { reader.skipWhitespace() }
            return false
        }
        return nil
    }

    /// Takes `text` if the bytes at the reader are exactly it (no whitespace skipped on either side). Compared
    /// eight bytes at a time in place (a record's ten fragments are 1 to 12 bytes; a `memcmp` call cost more).
    @inline(__always)
    private mutating func fragment(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard reader.index + count <= reader.bytes.count, let base = reader.bytes.baseAddress else { return false }
        let here = UnsafeRawPointer(base + reader.index), expected = UnsafeRawPointer(text.utf8Start)
        var offset = 0
        while offset + 8 <= count {
            guard here.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        if offset + 4 <= count {
            guard here.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt32.self) else { return false }
            offset += 4
        }
        while offset < count {
            guard here.load(fromByteOffset: offset, as: UInt8.self) == expected.load(fromByteOffset: offset, as: UInt8.self) else {
                return false
            }
            offset += 1
        }
        reader.index += count
        return true
    }

    private var peek: UInt8? { reader.index < reader.bytes.count ? reader.bytes[reader.index] : nil }

    /// Skips whitespace, then takes `byte` if it is next. (Never whitespace after it: `byte` may open a string.)
    private mutating func consume(_ byte: UInt8) -> Bool {
        reader.skipWhitespace()
        guard peek == byte else { return false }
        reader.index += 1
        return true
    }
}

extension PullResult {
    /// A pull page's answer line read by ``PullPageDecoder`` (its tests hold it equal to the general path).
    public static func decodeAnswerLine(_ line: [UInt8]) -> (id: RequestID, result: PullResult)? { PullPageDecoder.decode(line) }
}
