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

extension PullResult {
    /// A pull page's answer line read by ``PullPageDecoder`` (its tests hold it equal to the general path).
    public static func decodeAnswerLine(_ line: [UInt8]) -> (id: RequestID, result: PullResult)? { PullPageDecoder.decode(line) }
}
