import ExpenseCore
import FoundationEssentials

/// `push` `{"mutations":[M…]}`: the daemon decodes each mutation's shape here; the ledger validates fields.
public struct PushRequest: RPCMethodRequest, Hashable {
    public typealias Response = PushResult
    public static let method = "push"
    /// The most mutations one push may carry; more is −32602 `batch_too_large`, nothing applied.
    public static let maximumMutations = 1000

    /// One entry per mutation sent, in order: a well-formed mutation or the reason its shape was refused.
    public var items: [PushItem]

    public init(items: [PushItem]) { self.items = items }

    /// A push of well-formed mutations (client side).
    public init(mutations: [Mutation]) {
        items = mutations.map { PushItem(mutationId: $0.mutationId, decoded: .success($0)) }
    }

    /// Reads the params of a push.
    ///
    /// Whole-push errors (−32602, nothing applied, no id consumed): `mutations` missing or not an array
    /// (`invalid_params`), more than ``maximumMutations`` entries (`batch_too_large`), an entry that is not an
    /// object or whose `mutationId` is missing or not a positive JSON integer (`invalid_mutation`, field
    /// `mutations[i].mutationId`). Every other problem is confined to its entry, see ``PushItem``.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        guard let mutationsValue = reader.optional("mutations") else { throw .invalidParams("mutations is missing", field: "mutations") }
        guard case .array(let entries) = mutationsValue else { throw .invalidParams("mutations must be an array", field: "mutations") }
        guard entries.count <= Self.maximumMutations else { throw .batchTooLarge(count: entries.count) }
        var items: [PushItem] = []
        items.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard case .object(let members) = entry else {
                throw .invalidMutation("mutations[\(index)] must be an object", field: "mutations[\(index)]")
            }
            guard let mutationId = members["mutationId"]?.int64Value, mutationId > 0 else {
                throw .invalidMutation("mutations[\(index)].mutationId must be a positive integer",
                                       field: "mutations[\(index)].mutationId")
            }
            items.append(PushItem(mutationId: mutationId,
                                  decoded: Self.mutation(mutationId: mutationId, members: MutationMembers(members))))
        }
        self.items = items
    }

    /// The members of one mutation object that its shape depends on (`nil`: absent); every other member is ignored.
    /// The general reader above and the push line's fast path (``PushLineReader``) both fill it in.
    struct MutationMembers {
        /// The `fields` member: an object read member by member, or any other value (a wrong type, `null`).
        enum Fields {
            case object(MutationFields)
            case value(JSONValue)
        }

        var type: JSONValue?
        var baseVersion: JSONValue?
        var fields: Fields?
        /// The `id` member: already read as a UUID (the fast path, from a plain 36-byte string), or a value.
        enum ID {
            case uuid(UUID)
            case value(JSONValue)
        }

        var kind: JSONValue?
        var ifAbsent: JSONValue?
        var id: ID?

        init() {}

        /// The members of a mutation object read as a dictionary (the general path).
        init(_ members: [String: JSONValue]) {
            type = members["type"]
            baseVersion = members["baseVersion"]
            fields = members["fields"].map { value in
                if case .object(let sent) = value { .object(MutationFields(sent)) } else { .value(value) }
            }
            kind = members["kind"]
            ifAbsent = members["ifAbsent"]
            id = members["id"].map { .value($0) }
        }
    }

    /// The shape of one mutation, checked in the order type, baseVersion, fields, kind, ifAbsent, id.
    static func mutation(mutationId: Int64, members: MutationMembers) -> Result<Mutation, MutationRejection> {
        func malformed(_ field: String, _ message: String) -> Result<Mutation, MutationRejection> {
            .failure(MutationRejection(reason: "invalid_mutation", field: field, message: message))
        }
        guard let typeText = members.type?.stringValue, let type = MutationType(rawValue: typeText) else {
            return malformed("type", "type must be \"put\" or \"delete\"")
        }
        guard let baseVersion = members.baseVersion?.int64Value, baseVersion >= 0 else {
            return malformed("baseVersion", "baseVersion must be an integer, 0 or more")
        }
        var fields: MutationFields?
        switch (type, members.fields) {
        case (.put, .object(let sent)?): fields = sent
        case (.put, _): return .failure(.putWithoutFields)
        case (.delete, nil), (.delete, .value(.null)?): fields = nil
        case (.delete, _): return malformed("fields", "a delete carries no fields")
        }
        // `kind` and `ifAbsent` (Protocol.md §10): absent means an expense and a plain create.
        var kind = RecordKind.expense
        if let kindValue = members.kind {
            guard let text = kindValue.stringValue, let named = RecordKind(rawValue: text) else {
                return malformed("kind", "kind must be one of " + RecordKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            kind = named
        }
        var ifAbsent = false
        if let flag = members.ifAbsent {
            guard let value = flag.boolValue, !value || (kind == .expense && type == .put && baseVersion == 0) else {
                return malformed("ifAbsent", "ifAbsent is true or false, and true only on an expense create")
            }
            ifAbsent = value
        }
        let id: UUID
        switch members.id {
        case .uuid(let parsed)?: id = parsed
        case .value(let value)?:
            guard let text = value.stringValue, let parsed = try? ExpenseValidator.validateID(text) else {
                return .failure(MutationRejection(.invalidId(DisplayText.escaped(value.stringValue ?? value.jsonText))))
            }
            id = parsed
        case nil: return .failure(MutationRejection(.invalidId(DisplayText.escaped("(missing)"))))
        }
        return .success(Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion, sentFields: fields,
                                 kind: kind, ifAbsent: ifAbsent))
    }

    /// Writes `{"mutations":[…]}`. An entry whose shape was refused is written as `{"mutationId":N}` only, which
    /// the daemon refuses again as `invalid_mutation`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("mutations")
        writer.beginArray()
        for item in items {
            switch item.decoded {
            case .success(let mutation): mutation.write(to: &writer)
            case .failure: writer.object { writer in writer.member("mutationId", item.mutationId) }
            }
        }
        writer.endArray()
        writer.endObject()
    }
}

extension Mutation {
    /// Writes `{"baseVersion","fields"?,"id","ifAbsent"?,"kind"?,"mutationId","type"}` (id lower case; `fields`
    /// for a put only; `kind` only for another kind than an expense, `ifAbsent` only when true).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("baseVersion", baseVersion)
        if type == .put { writer.member("fields", .object(fields ?? [:])) }
        writer.key("id"); writer.uuid(id)
        if ifAbsent { writer.member("ifAbsent", true) }
        if kind != .expense { writer.member("kind", kind.rawValue) }
        writer.member("mutationId", mutationId)
        writer.member("type", type.rawValue)
        writer.endObject()
    }
}

/// `push` result: one result per mutation, in order, and the ledger's head after the push.
public struct PushResult: Hashable, Sendable {
    public var results: [MutationResult]
    public var cursor: Int64

    public init(results: [MutationResult], cursor: Int64) {
        self.results = results
        self.cursor = cursor
    }
}

extension PushResult: RPCResult {
    /// Writes `{"cursor":N,"results":[R…]}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("cursor", cursor)
        writer.key("results")
        writer.beginArray()
        for result in results { result.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }

    /// An applied answer with its record takes about 240 bytes (a record with short texts and the applied
    /// members): reserved once, a 500-mutation answer (about 120 kB) is not copied as its buffer doubles, which
    /// cost about 60,000 instructions a push (`Benchmarks/push-profile`).
    public var encodedSizeHint: Int { 64 + results.count * 256 }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        var results: [MutationResult] = []
        for (index, element) in try reader.array("results").enumerated() {
            results.append(try MutationResult(json: element, path: "result.results[\(index)]"))
        }
        self.init(results: results, cursor: try reader.int64("cursor"))
    }
}

extension PushRequest {
    /// The bytes of a push request line around its mutations, `{"jsonrpc":"2.0","id":…,"method":"push",
    /// "params":{"mutations":[` … `]}}`, with the longest request id a client numbers (an Int64) and without
    /// the `\n`: with ``encodedBytes(of:)`` a client knows a push's line length before it numbers anything.
    public static let envelopeBytes = RPCClientCodec.request(id: RequestID(Int64.max), PushRequest(mutations: [])).count - 1

    /// The bytes `mutation` adds to a push line: its JSON and the comma that may precede it.
    public static func encodedBytes(of mutation: Mutation) -> Int {
        var writer = JSONWriter(capacity: 256)
        mutation.write(to: &writer)
        return writer.bytes.count + 1
    }
}
