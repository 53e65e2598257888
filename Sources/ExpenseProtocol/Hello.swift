import ExpenseCore
import FoundationEssentials

/// `hello` parameters: must be the first request on a connection.
public struct HelloRequest: Hashable, Sendable {
    public var protocolVersion: Int64
    public var ledger: String
    public var token: String
    public var clientId: UUID
    public var clientName: String?
    /// The record kinds besides expenses the client asks to be served (Protocol.md §10); empty: expenses only,
    /// exactly as protocol 1 always was.
    public var kinds: [RecordKind]

    public init(protocolVersion: Int64, ledger: String, token: String, clientId: UUID, clientName: String?,
                kinds: [RecordKind] = []) {
        self.protocolVersion = protocolVersion
        self.ledger = ledger
        self.token = token
        self.clientId = clientId
        self.clientName = clientName
        self.kinds = kinds
    }
}

/// `hello` result.
public struct HelloResult: Hashable, Sendable {
    public var protocolVersion: Int64
    public var server: String
    public var ledger: String
    public var currency: Currency
    public var cursor: Int64
    /// The highest mutationId consumed for this clientId; 0 for a new client.
    public var lastMutationId: Int64
    /// The daemon's line limit in bytes (`--max-line`, Protocol.md §1): no line sent to it may be longer, and
    /// its pull pages are cut to it (§5.3). ``assumedMaxLine`` when the daemon does not announce one.
    public var maxLine: Int
    /// The ledger's identity and history epoch (Protocol.md §5.7); `nil` from a daemon that does not send them.
    public var identity: LedgerIdentity?
    /// What the token may do (Protocol.md §4, "Roles"); `nil` from a daemon older than roles (every token was
    /// then an owner's) or for a role this client does not know.
    public var role: TokenRole?
    /// The name of the token the `hello` was made with (`default` for a ledger's first token); `nil` from a
    /// daemon older than named tokens.
    public var tokenName: String?
    /// The kinds besides expenses the daemon serves on this connection: those the client asked for that it
    /// knows (Protocol.md §10); `nil` when the client asked for none (the member is then absent).
    public var kinds: [RecordKind]?

    /// What a client assumes of a daemon whose `hello` result has no `maxLine`: the protocol's default limit.
    public static let assumedMaxLine = 1_048_576

    public init(protocolVersion: Int64, server: String, ledger: String, currency: Currency, cursor: Int64, lastMutationId: Int64,
                maxLine: Int = HelloResult.assumedMaxLine, identity: LedgerIdentity? = nil, role: TokenRole? = nil,
                tokenName: String? = nil, kinds: [RecordKind]? = nil) {
        self.kinds = kinds
        self.protocolVersion = protocolVersion
        self.server = server
        self.ledger = ledger
        self.currency = currency
        self.cursor = cursor
        self.lastMutationId = lastMutationId
        self.maxLine = maxLine
        self.identity = identity
        self.role = role
        self.tokenName = tokenName
    }
}

extension HelloRequest: RPCMethodRequest {
    public typealias Response = HelloResult
    public static let method = "hello"

    /// Reads `{"protocol":1,"ledger":…,"token":…,"clientId":"<uuid>","clientName":…?}`.
    ///
    /// `protocol` is read first: an integer other than ``ProtocolVersion/current`` throws −32003
    /// `unsupported_protocol` before any other member is looked at (a newer client may send other members).
    /// - Throws: ``RPCError``: −32003, or −32602 naming the member.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        guard let protocolValue = reader.optional("protocol") else { throw .invalidParams("protocol is missing", field: "protocol") }
        guard case .number(let number) = protocolValue else { throw .invalidParams("protocol must be an integer", field: "protocol") }
        guard number.int64 == ProtocolVersion.current else { throw .unsupportedProtocol(DisplayText.escaped(number.text)) }
        let clientIdText = try reader.string("clientId")
        guard let clientId = try? ExpenseValidator.validateID(clientIdText) else {
            throw .invalidParams("clientId must be a UUID", field: "clientId")
        }
        self.init(protocolVersion: ProtocolVersion.current, ledger: try reader.string("ledger"), token: try reader.string("token"),
                  clientId: clientId, clientName: try reader.optionalString("clientName"), kinds: try Self.kinds(reader.optional("kinds")))
    }

    /// `kinds` (Protocol.md §10): absent is none; an array of strings whose unknown names (and `expense`, which
    /// is always served) are ignored, so a newer client can ask an older daemon; anything else is −32602.
    /// `history` reads its `kinds` the same way (Protocol.md §5.8).
    static func kinds(_ value: JSONValue?) throws(RPCError) -> [RecordKind] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let names) = value else { throw .invalidParams("kinds must be an array of strings", field: "kinds") }
        var kinds: Set<RecordKind> = []
        for name in names {
            guard let text = name.stringValue else { throw .invalidParams("kinds must be an array of strings", field: "kinds") }
            if let kind = RecordKind(rawValue: text), kind != .expense { kinds.insert(kind) }
        }
        return kinds.sorted()
    }

    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("clientId"); writer.uuid(clientId)
        if let clientName { writer.member("clientName", clientName) }
        if !kinds.isEmpty { writer.member("kinds", .array(kinds.map { .string($0.rawValue) })) }
        writer.member("ledger", ledger)
        writer.member("protocol", protocolVersion)
        writer.member("token", token)
        writer.endObject()
    }
}

extension HelloResult: RPCResult {
    /// Writes `{"currency","cursor","epoch","epochCursor","lastMutationId","ledger","ledgerId","maxLine","protocol","role","server","tokenName"}`
    /// (the identity members, `role` and `tokenName` only when known).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("currency", currency.code)
        writer.member("cursor", cursor)
        if let identity {
            writer.key("epoch"); writer.uuid(identity.epoch)
            writer.member("epochCursor", identity.epochCursor)
        }
        if let kinds { writer.member("kinds", .array(kinds.map { .string($0.rawValue) })) }
        writer.member("lastMutationId", lastMutationId)
        writer.member("ledger", ledger)
        if let identity { writer.key("ledgerId"); writer.uuid(identity.ledgerId) }
        writer.member("maxLine", Int64(maxLine))
        writer.member("protocol", protocolVersion)
        if let role { writer.member("role", role.rawValue) }
        writer.member("server", server)
        if let tokenName { writer.member("tokenName", tokenName) }
        writer.endObject()
    }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        let code = try reader.string("currency")
        guard let currency = Currency(code: code) else { throw .invalidMember(path: "result.currency", detail: "unknown currency \(code)") }
        // `maxLine` is newer than protocol 1's first daemons: absent, the protocol's default limit holds.
        var maxLine = HelloResult.assumedMaxLine
        if let announced = reader.members["maxLine"], !announced.isNull {
            guard let value = announced.int64Value, value >= 1, value <= Int64(Int32.max) else {
                throw .invalidMember(path: reader.sub("maxLine"), detail: "expected a positive integer of bytes")
            }
            maxLine = Int(value)
        }
        self.init(protocolVersion: try reader.int64("protocol"), server: try reader.string("server"), ledger: try reader.string("ledger"),
                  currency: currency, cursor: try reader.int64("cursor"), lastMutationId: try reader.int64("lastMutationId"),
                  maxLine: maxLine, identity: try Self.identity(reader),
                  // Additive (Protocol.md §5.1): absent from older daemons; a role this client does not know reads as nil.
                  role: try reader.optionalString("role").flatMap(TokenRole.init(rawValue:)),
                  tokenName: try reader.optionalString("tokenName"),
                  kinds: reader.members["kinds"]?.arrayValue.map { names in
                      names.compactMap { $0.stringValue.flatMap(RecordKind.init(rawValue:)) }.filter { $0 != .expense }
                  })
    }

    /// `ledgerId`, `epoch` and `epochCursor`: all absent (an older daemon) is `nil`; a present one must be valid.
    private static func identity(_ reader: ResultReader) throws(ProtocolDecodingError) -> LedgerIdentity? {
        guard let ledgerIdText = try reader.optionalString("ledgerId") else { return nil }
        func uuid(_ text: String, _ key: String) throws(ProtocolDecodingError) -> UUID {
            guard let id = UUIDText.parse(text) else { throw .invalidMember(path: reader.sub(key), detail: "expected a UUID") }
            return id
        }
        let epochCursor = reader.members["epochCursor"] == nil ? 0 : try reader.int64("epochCursor")
        return LedgerIdentity(ledgerId: try uuid(ledgerIdText, "ledgerId"), epoch: try uuid(try reader.string("epoch"), "epoch"),
                              epochCursor: epochCursor)
    }
}
