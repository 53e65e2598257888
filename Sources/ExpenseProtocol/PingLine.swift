#if canImport(Glibc)
import Glibc
#endif

/// The fast path for the commonest request line, `ping` (Protocol.md §5.5): recognised by comparing bytes, with no
/// `String` or ``JSONValue`` made, and answered by appending fixed bytes, the id as sent and the head.
///
/// It accepts only lines that are certain to mean the same as on the general path (``RPCRequest/parse(_:)`` and
/// the session's method table): one JSON object with nothing but whitespace around and inside it, whose members
/// are exactly `"jsonrpc":"2.0"`, `"method":"ping"`, an `id` and optionally `params` of `null` or `{}`, each at most
/// once, in any order, with keys and values written without escapes. The id is an integer (`-?(0|[1-9][0-9]*)`,
/// at most ``JSONParser/maximumNumberLength`` characters) or a string of printable ASCII without `"` or `\`: the general path echoes both byte for byte (a number as its
/// text, such a string unescaped and written back unchanged). Anything else, valid or not, returns `nil` and goes
/// to the general path, which decides it as before; PingLineTests compares the two on a corpus and its mutations.
public enum PingLine {
    /// Where the id's JSON text is in `line`, when `line` is a `ping` request in one of the forms above.
    public static func idRange(in line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var scanner = Scanner(line)
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var seen: UInt8 = 0
        var id: Range<Int>?
        repeat {
            guard let member = scanner.memberKey(), seen & member.rawValue == 0, scanner.take(UInt8(ascii: ":")) else {
                return nil
            }
            seen |= member.rawValue
            scanner.skipWhitespace()
            switch member {
            case .jsonrpc: guard scanner.literal(#""2.0""#) else { return nil }
            case .method: guard scanner.literal(#""ping""#) else { return nil }
            case .params: guard scanner.literal("null") || scanner.literal("{") && scanner.take(UInt8(ascii: "}")) else { return nil }
            case .id:
                guard let range = scanner.plainID() else { return nil }
                id = range
            }
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), scanner.atEnd, seen & Member.required == Member.required else { return nil }
        return id
    }

    /// Appends the answer `{"jsonrpc":"2.0","id":<id>,"result":{"cursor":<cursor>}}\n`, the bytes
    /// ``RPCResponse/success(id:result:)`` writes for a ``CursorResult``. `id` is the id's JSON text as sent.
    ///
    /// The answer is put together in a temporary buffer (on the stack for any usual id) and appended with one
    /// `append`: one capacity check instead of one per piece (the five `append`s cost 625 instructions a ping,
    /// this 302).
    public static func appendAnswer(id: UnsafeBufferPointer<UInt8>, cursor: Int64, to output: inout [UInt8]) {
        let digits = decimalLength(cursor)
        let length = prefix.count + id.count + middle.count + digits + suffix.count
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            guard let base = buffer.baseAddress else { return }  // never: the answer is not empty
            let afterPrefix = prefix.withUnsafeBufferPointer { copy($0, to: base) }
            let afterID = copy(id, to: afterPrefix)
            let afterMiddle = middle.withUnsafeBufferPointer { copy($0, to: afterID) }
            writeDecimal(cursor, into: UnsafeMutableBufferPointer(start: afterMiddle, count: digits))
            _ = suffix.withUnsafeBufferPointer { copy($0, to: afterMiddle + digits) }
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: length))
        }
    }

    /// Copies `piece` to `target`; returns the byte after it.
    private static func copy(_ piece: UnsafeBufferPointer<UInt8>, to target: UnsafeMutablePointer<UInt8>)
        -> UnsafeMutablePointer<UInt8> {
        guard let source = piece.baseAddress else { return target }
        target.initialize(from: source, count: piece.count)
        return target + piece.count
    }

    private static let prefix = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
    private static let middle = Array(#","result":{"cursor":"#.utf8)
    private static let suffix = Array("}}\n".utf8)

    /// `value` in decimal, written in place (no `String`).
    static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        let digits = decimalLength(value)
        let start = output.count
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        output.withUnsafeMutableBufferPointer { buffer in
            writeDecimal(value, into: UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + digits)]))
        }
    }

    /// The bytes `value` takes in decimal, its sign included.
    static func decimalLength(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var digits = 1
        while magnitude >= 10 {
            digits += 1
            magnitude /= 10
        }
        return value < 0 ? digits + 1 : digits
    }

    /// Writes `value` in decimal into `target`, which is exactly ``decimalLength(_:)`` bytes long.
    private static func writeDecimal(_ value: Int64, into target: UnsafeMutableBufferPointer<UInt8>) {
        var magnitude = value.magnitude
        var index = target.count - 1
        repeat {
            target[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        if value < 0 { target[0] = UInt8(ascii: "-") }
    }

    /// The envelope's members; one bit each.
    private enum Member: UInt8 {
        case jsonrpc = 1, id = 2, method = 4, params = 8
        static let required: UInt8 = 1 | 2 | 4
    }

    /// A cursor over the line's bytes.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get {
                skipWhitespace()
                return index == bytes.count
            }
        }

        /// JSON's whitespace: space, tab, line feed, carriage return.
        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// After whitespace, `byte`: consumed and `true`; otherwise `false`.
        mutating func take(_ byte: UInt8) -> Bool {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Exactly `text` here (no whitespace skipped): consumed and `true`.
        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count, let base = bytes.baseAddress,
                  memcmp(base + index, text.utf8Start, count) == 0 else { return false }
            index += count
            return true
        }

        /// After whitespace, one of the envelope's keys written without escapes.
        mutating func memberKey() -> Member? {
            skipWhitespace()
            if literal(#""jsonrpc""#) { return .jsonrpc }
            if literal(#""id""#) { return .id }
            if literal(#""method""#) { return .method }
            if literal(#""params""#) { return .params }
            return nil
        }

        /// An integer or a plain string (see ``PingLine``): its range, quotes included.
        mutating func plainID() -> Range<Int>? {
            let start = index
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count {
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") { return start..<index }
                    guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                }
                return nil
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            guard index > digitsStart, bytes[digitsStart] != UInt8(ascii: "0") || index == digitsStart + 1,
                  index - start <= JSONParser.maximumNumberLength else { return nil }  // longer: the general path's error
            return start..<index
        }
    }
}
