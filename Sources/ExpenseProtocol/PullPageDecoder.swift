import ExpenseCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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

    /// The cursor a pull response line announces for its next page, read from what has arrived of the line: the
    /// cursor when it begins `{"jsonrpc":"2.0","id":<digits>,"result":{"cursor":<digits>,"more":true,` (as this
    /// daemon writes a page, so its first bytes say it), or when the whole line ends
    /// `,"cursor":<digits>,"more":true}}` (as a daemon that wrote `changes` first did); else `nil`, also while
    /// too little of the line has arrived to tell. Neither form can occur elsewhere in a page: a quote inside a
    /// string is escaped.
    ///
    /// Only a guess, for asking for the next page before this one is decoded: the decoded page's own cursor
    /// decides (a request sent on a wrong guess has its answer dropped).
    public static func announcedCursor(_ line: ArraySlice<UInt8>) -> Int64? {
        line.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return nil }
            var index = 0
            func fragment(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard bytes.count - index >= count,
                      memcmp(base + index, text.utf8Start, count) == 0 else { return false }
                index += count
                return true
            }
            // Up to 19 digits, followed by more.
            func digits() -> Int64? {
                let start = index
                while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10, index - start < 19 { index += 1 }
                guard index > start, index < bytes.count else { return nil }
                return Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
            if fragment(#"{"jsonrpc":"2.0","id":"#), digits() != nil, fragment(#","result":{"cursor":"#),
               let cursor = digits(), fragment(#","more":true,"#) {
                return cursor
            }
            // A line of the older layout, its cursor at the end.
            let suffix = #","more":true}}"#.utf8, name = #","cursor":"#.utf8
            guard bytes.count > suffix.count + name.count, bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
            var start = bytes.count - suffix.count
            let end = start
            while start > 0, bytes[start - 1] &- UInt8(ascii: "0") < 10, end - start < 19 { start -= 1 }
            guard start < end, start >= name.count, bytes[(start - name.count)..<start].elementsEqual(name) else { return nil }
            return Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
    }
}

extension PullResult {
    /// A pull page's answer line read by ``PullPageDecoder`` (its tests hold it equal to the general path).
    public static func decodeAnswerLine(_ line: [UInt8]) -> (id: RequestID, result: PullResult)? { PullPageDecoder.decode(line) }
}
