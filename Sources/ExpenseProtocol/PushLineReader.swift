import ExpenseCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The fast path of a `push` line on the daemon: the envelope and the mutations read straight off the line's
/// bytes into a ``PushRequest``, without the ``JSONValue`` tree of `params` (a dictionary per mutation, the array,
/// the params object) that the general path builds and ``PushRequest/init(params:)`` then reads again.
///
/// It accepts only what is certain to mean the same on both paths: one JSON object, nothing but whitespace
/// around it, envelope members (`jsonrpc`, `id`, `method`, `params`) each at most once with `method` `"push"`
/// before `params`; `params` exactly `{"mutations":[…]}` with at most ``PushRequest/maximumMutations`` entries,
/// each an object of mutation members only (`mutationId`, `type`, `id`, `baseVersion`, `fields`, `kind`,
/// `ifAbsent`), each at most once, with a positive integer `mutationId`; and no error anywhere (no duplicate key
/// inside `fields` either). Each entry's shape is then decided by the one function the general path uses
/// (``PushRequest/mutation(mutationId:members:)``), so every per-mutation refusal (`invalid_mutation`,
/// `invalid_id`) is the same; whole-push errors, unknown members and everything unusual return `nil` and go to
/// the general path, which decides them exactly as before. PushLineReaderTests compares the two on a corpus and
/// on seeded mutations of it.
enum PushLineReader {
    /// The request with its decoded push (``RPCRequest/push``, `params` nil), or `nil` when the general path
    /// must read the line. Any line whose `method` is not `"push"` returns `nil` as soon as `method` is read.
    static func read(_ line: UnsafeBufferPointer<UInt8>) -> RPCRequest? {
        // A line without the bytes `"push"` is no plain push (an escaped name goes the general way too): it leaves
        // at once, so a ping's envelope is not read twice (reading it first cost a ping 3k instructions).
        guard containsPushName(line) else { return nil }
        var reader = JSONReader(bytes: line)
        reader.skipWhitespace()
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        reader.depth = 1  // inside the envelope, as the general reader counts nesting
        var jsonrpc: JSONValue?, id: JSONValue?, method: JSONValue?
        var items: [PushItem]?
        var seen: UInt8 = 0
        while true {
            guard let key = reader.plainMemberKey(), let member = Self.envelopeMember(key), seen & member.bit == 0 else {
                return nil
            }
            seen |= member.bit
            switch member {
            case .params:
                // Only a push's params are read here, and only once its method is known.
                guard case .string("push")? = method, let decoded = readParams(&reader) else { return nil }
                items = decoded
            case .method:
                guard let value = try? reader.parseValue(), case .string("push") = value else { return nil }
                method = value
            case .jsonrpc, .id:
                guard let value = try? reader.parseValue() else { return nil }
                if member == .jsonrpc { jsonrpc = value } else { id = value }
            }
            reader.skipWhitespace()
            if reader.consume(UInt8(ascii: "}")) { break }
            guard reader.consume(UInt8(ascii: ",")) else { return nil }
        }
        reader.skipWhitespace()
        guard reader.index == line.count, reader.firstDuplicateKey == nil, let items else { return nil }
        // The envelope's own checks (id, jsonrpc) are the general path's; `params` is known to be an object.
        guard case .success(var request) = RPCRequest.interpret(id: id, jsonrpc: jsonrpc, method: method, params: .object([:])) else {
            return nil
        }
        request.payload = .decodedPush(PushRequest(items: items))
        return request
    }

    /// Whether the six bytes `"push"` occur in `line`.
    private static func containsPushName(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard line.count >= 6 else { return false }
        var start = 0
        while start <= line.count - 6 {
            if line[start] == UInt8(ascii: "\""), line[start + 1] == UInt8(ascii: "p"), line[start + 2] == UInt8(ascii: "u"),
               line[start + 3] == UInt8(ascii: "s"), line[start + 4] == UInt8(ascii: "h"), line[start + 5] == UInt8(ascii: "\"") {
                return true
            }
            start += 1
        }
        return false
    }

    /// `{"mutations":[…]}`, the reader just before its `{`; `nil` for anything else, or too many entries.
    private static func readParams(_ reader: inout JSONReader) -> [PushItem]? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        reader.depth = 2
        guard let key = reader.plainMemberKey(), Self.equal(key, "mutations"), reader.consume(UInt8(ascii: "[")) else {
            return nil
        }
        reader.depth = 3
        var items: [PushItem] = []
        reader.skipWhitespace()
        if !reader.consume(UInt8(ascii: "]")) {
            while true {
                reader.skipWhitespace()
                guard items.count < PushRequest.maximumMutations, let item = readMutation(&reader) else { return nil }
                items.append(item)
                reader.skipWhitespace()
                if reader.consume(UInt8(ascii: "]")) { break }
                guard reader.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
        reader.depth = 2
        reader.skipWhitespace()
        guard reader.consume(UInt8(ascii: "}")) else { return nil }
        reader.depth = 1
        return items
    }

    /// One entry, the reader at its `{`: its shape decided by ``PushRequest/mutation(mutationId:members:)``.
    private static func readMutation(_ reader: inout JSONReader) -> PushItem? {
        guard reader.consume(UInt8(ascii: "{")) else { return nil }
        reader.depth = 4
        var members = PushRequest.MutationMembers()
        var mutationIdValue: JSONValue?
        var seen: UInt8 = 0
        while true {
            guard let key = reader.plainMemberKey(), let member = MutationMember(key), seen & member.bit == 0 else {
                return nil
            }
            seen |= member.bit
            if member == .fields {
                guard let fields = readFieldsMember(&reader) else { return nil }
                members.fields = fields
            } else if member == .id, let id = reader.plainUUIDString() {
                members.id = .uuid(id)
            } else {
                guard let value = try? reader.parseValue() else { return nil }
                switch member {
                case .mutationId: mutationIdValue = value
                case .type: members.type = value
                case .id: members.id = .value(value)
                case .baseVersion: members.baseVersion = value
                case .kind: members.kind = value
                case .ifAbsent: members.ifAbsent = value
                case .fields: break
                }
            }
            reader.skipWhitespace()
            if reader.consume(UInt8(ascii: "}")) { break }
            guard reader.consume(UInt8(ascii: ",")) else { return nil }
        }
        reader.depth = 3
        // A missing or bad mutationId refuses the whole push: the general path says how.
        guard let mutationId = mutationIdValue?.int64Value, mutationId > 0 else { return nil }
        return PushItem(mutationId: mutationId, decoded: PushRequest.mutation(mutationId: mutationId, members: members))
    }

    /// A mutation's `fields` member, the reader at its value: an object read member by member into its
    /// ``MutationFields`` (no dictionary for the five expense fields), anything else as a value; `nil` for a
    /// duplicate member or an error (the general path says how).
    private static func readFieldsMember(_ reader: inout JSONReader) -> PushRequest.MutationMembers.Fields? {
        guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "{") else {
            return (try? reader.parseValue()).map { .value($0) }
        }
        reader.index += 1
        reader.depth = 5  // the fields object, as the general reader counts nesting: its values nest from here
        var fields = MutationFields()
        if !reader.consume(UInt8(ascii: "}")) {
            while true {
                guard let key = reader.plainMemberKey(), let value = try? reader.parseValue(),
                      Self.setNew(value, forKey: key, in: &fields) else { return nil }
                reader.skipWhitespace()
                if reader.consume(UInt8(ascii: "}")) { break }
                guard reader.consume(UInt8(ascii: ",")) else { return nil }
            }
        }
        reader.depth = 4
        return .object(fields)
    }

    /// Whether a key's bytes (``JSONReader/plainMemberKey()``) are `name`'s.
    private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount, let base = key.baseAddress else { return false }
        return memcmp(base, name.utf8Start, key.count) == 0
    }

    /// The envelope member `key` names; `nil` for any other key.
    private static func envelopeMember(_ key: UnsafeBufferPointer<UInt8>) -> RPCEnvelopeReader.Member? {
        if equal(key, "jsonrpc") { return .jsonrpc }
        if equal(key, "id") { return .id }
        if equal(key, "method") { return .method }
        if equal(key, "params") { return .params }
        return nil
    }

    /// Puts `value` as the member `key` of `fields` (an expense field's slot, or ``MutationFields/others`` under
    /// the key as text); `false`, and nothing changed, when the object already has that member.
    private static func setNew(_ value: JSONValue, forKey key: UnsafeBufferPointer<UInt8>, in fields: inout MutationFields) -> Bool {
        if let slot = ExpenseFields.slot(named: key) {
            guard fields[slot: slot] == nil else { return false }
            fields[slot: slot] = value
            return true
        }
        let name = String(decoding: key, as: UTF8.self)
        guard fields.others[name] == nil else { return false }
        fields.others[name] = value
        return true
    }

    /// The members of a mutation that its shape reads (Protocol.md §5.2, §10).
    private enum MutationMember {
        case mutationId, type, id, baseVersion, fields, kind, ifAbsent

        /// The member `key` names; `nil` for any other key. Compared one by one, in the order clients write them.
        init?(_ key: UnsafeBufferPointer<UInt8>) {
            if PushLineReader.equal(key, "baseVersion") { self = .baseVersion
            } else if PushLineReader.equal(key, "fields") { self = .fields
            } else if PushLineReader.equal(key, "id") { self = .id
            } else if PushLineReader.equal(key, "mutationId") { self = .mutationId
            } else if PushLineReader.equal(key, "type") { self = .type
            } else if PushLineReader.equal(key, "kind") { self = .kind
            } else if PushLineReader.equal(key, "ifAbsent") { self = .ifAbsent
            } else { return nil }
        }

        var bit: UInt8 {
            switch self {
            case .mutationId: 1
            case .type: 2
            case .id: 4
            case .baseVersion: 8
            case .fields: 16
            case .kind: 32
            case .ifAbsent: 64
            }
        }
    }
}

extension JSONReader {
    /// Skips whitespace, then consumes `byte` if it is next; whether it was.
    fileprivate mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A string value that is exactly a UUID's 36 characters, no escape, read as the UUID without making a
    /// `String` (it would be a heap allocation per mutation); `nil`, and nothing consumed, for any other value,
    /// which the caller then reads as a value (its refusal worded from its text, as on the general path).
    fileprivate mutating func plainUUIDString() -> UUID? {
        guard index + 38 <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[index + 37] == UInt8(ascii: "\""),
              let id = UUIDText.parse(utf8: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + 37)])) else { return nil }
        index += 38
        return id
    }

    /// A member's key and its `:`, the reader then at the value, as the key's bytes between its quotes, without
    /// making a `String`; `nil` when that is not what follows, and for a key with an escape, a control character or
    /// a byte above ASCII (the general path reads such a line: the same key written two ways must mean the same).
    fileprivate mutating func plainMemberKey() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            let byte = bytes[end]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}

extension RPCRequest {
    /// ``parse(_:)`` as the daemon reads a line: a plain push line by ``PushLineReader``, its mutations already
    /// decoded (``push``); every other line exactly as ``parse(_:)`` reads it.
    package static func parseDecodingPush(_ line: ArraySlice<UInt8>) -> Result<RPCRequest, RPCRequestFailure> {
        line.withUnsafeBufferPointer { buffer in
            if let request = PushLineReader.read(buffer) { return .success(request) }
            return parse(buffer)
        }
    }

    /// The push this request carries: the one the fast path decoded, or its `params` read now.
    /// - Throws: ``RPCError``, as ``PushRequest/init(params:)``.
    package func pushRequest() throws(RPCError) -> PushRequest {
        switch payload {
        case .decodedPush(let push): return push
        case .json(let params): return try PushRequest(params: params)
        }
    }
}
