/// The fast path of ``RPCRequest/parse(_:)-(UnsafeBufferPointer<UInt8>)``: the members of a request line read
/// straight off its bytes, without the dictionary the general reader builds for the object.
///
/// It accepts only what is certain to mean the same on both paths: one JSON object, nothing but whitespace
/// around it, whose keys are envelope members (`jsonrpc`, `id`, `method`, `params`), each at most once, and
/// which parses without any error (no duplicate key inside `params` either). Everything else returns `nil` and
/// goes to the general path, which then decides every error and every unusual case exactly as before; the two
/// are compared on a corpus and on mutations of it in RPCEnvelopeReaderTests.
enum RPCEnvelopeReader {
    /// The envelope's members as read (`nil`: absent).
    struct Envelope {
        var jsonrpc: JSONValue?
        var id: JSONValue?
        var method: JSONValue?
        var params: JSONValue?
    }

    /// The members of `line`, or `nil` when the general path must read it.
    static func read(_ line: UnsafeBufferPointer<UInt8>) -> Envelope? {
        var reader = JSONReader(bytes: line)
        reader.skipWhitespace()
        guard reader.index < line.count, line[reader.index] == UInt8(ascii: "{") else { return nil }
        reader.index += 1
        reader.depth = 1  // inside the envelope object, as the general reader counts nesting
        var envelope = Envelope()
        var seen: UInt8 = 0  // one bit per member read
        while true {
            reader.skipWhitespace()
            guard reader.index < line.count, line[reader.index] == UInt8(ascii: "\"") else { return nil }
            guard let key = try? reader.parseString(), let member = Member(rawValue: key), seen & member.bit == 0 else {
                return nil
            }
            seen |= member.bit
            reader.skipWhitespace()
            guard reader.index < line.count, line[reader.index] == UInt8(ascii: ":") else { return nil }
            reader.index += 1
            reader.skipWhitespace()
            guard let value = try? reader.parseValue() else { return nil }
            switch member {
            case .jsonrpc: envelope.jsonrpc = value
            case .id: envelope.id = value
            case .method: envelope.method = value
            case .params: envelope.params = value
            }
            reader.skipWhitespace()
            guard reader.index < line.count else { return nil }
            let separator = line[reader.index]
            reader.index += 1
            if separator == UInt8(ascii: "}") { break }
            guard separator == UInt8(ascii: ",") else { return nil }
        }
        reader.skipWhitespace()
        guard reader.index == line.count, reader.firstDuplicateKey == nil else { return nil }
        return envelope
    }

    /// The members of a request envelope (Protocol.md §3), each a bit of a set of members seen (also read by
    /// ``PushLineReader``).
    enum Member: String {
        case jsonrpc, id, method, params

        var bit: UInt8 {
            switch self {
            case .jsonrpc: 1
            case .id: 2
            case .method: 4
            case .params: 8
            }
        }
    }
}
