import ExpenseCore
import FoundationEssentials

/// The daemon's state of one budget, recurring rule or setting (Protocol.md §10): its kind, its fields, its
/// version and its place in the ledger (the same `seq` sequence as expenses). A tombstone keeps its fields.
public struct DataRecord: Hashable, Sendable {
    public var kind: RecordKind
    public var id: UUID
    public var fields: LedgerDataFields
    /// 1 at creation, +1 for every applied change (a delete included).
    public var version: Int64
    public var seq: Int64
    public var deleted: Bool

    public init(kind: RecordKind, id: UUID, fields: LedgerDataFields, version: Int64, seq: Int64, deleted: Bool) {
        precondition(kind != .expense, "an expense is a Record")
        self.kind = kind
        self.id = id
        self.fields = fields
        self.version = version
        self.seq = seq
        self.deleted = deleted
    }

    /// Writes `{"deleted","fields","id","kind","seq","version"}` (sorted; id lower case).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("deleted", deleted)
        writer.key("fields"); LedgerDataJSON.write(.object(fields), to: &writer)
        writer.key("id"); writer.uuid(id)
        writer.member("kind", kind.rawValue)
        writer.member("seq", seq)
        writer.member("version", version)
        writer.endObject()
    }

    /// Reads a record sent by the daemon; its fields go through ``LedgerDataValidator`` like any outside input.
    /// - Throws: ``ProtocolDecodingError`` naming the member under `path`.
    public init(json: JSONValue, path: String = "record") throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        let kindText = try reader.string("kind")
        guard let kind = RecordKind(rawValue: kindText), kind != .expense else {
            throw .invalidMember(path: reader.sub("kind"), detail: "unknown record kind")
        }
        guard let id = UUIDText.parse(try reader.string("id")) else { throw .invalidMember(path: reader.sub("id"), detail: "expected a UUID") }
        guard case .object(let members) = try reader.value("fields") else {
            throw .invalidMember(path: reader.sub("fields"), detail: "expected an object")
        }
        let fields: LedgerDataFields
        switch LedgerDataJSON.fields(members) {
        case .failure(let rejection): throw .invalidMember(path: reader.sub("fields." + (rejection.field ?? "")), detail: rejection.message)
        case .success(let converted): fields = converted
        }
        do {
            _ = try LedgerDataValidator.validate(kind: kind, id: id, fields: fields)
        } catch {
            throw .invalidMember(path: reader.sub("fields." + error.field), detail: error.description)
        }
        let version = try reader.int64("version")
        guard version >= 1 else { throw .invalidMember(path: reader.sub("version"), detail: "a version is at least 1") }
        let seq = try reader.int64("seq")
        guard seq >= 0 else { throw .invalidMember(path: reader.sub("seq"), detail: "a seq is not negative") }
        self.init(kind: kind, id: id, fields: fields, version: version, seq: seq, deleted: try reader.bool("deleted"))
    }
}

/// ``LedgerDataValue`` ⇄ JSON: integers, strings, arrays and objects only.
public enum LedgerDataJSON {
    /// The fields of a put, converted: a value of another JSON type (a fraction, a boolean, null) is
    /// `invalid_value` naming its field.
    public static func fields(_ members: [String: JSONValue]) -> Result<LedgerDataFields, MutationRejection> {
        var fields: LedgerDataFields = [:]
        for key in members.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            guard let value = members[key].flatMap(convert) else {
                return .failure(MutationRejection(reason: "invalid_value", field: key,
                                                  message: "invalid \(DisplayText.escaped(key)): only integers, strings, lists and objects"))
            }
            fields[key] = value
        }
        return .success(fields)
    }

    static func convert(_ value: JSONValue) -> LedgerDataValue? {
        switch value {
        case .number(let number): number.int64.map { .integer($0) }
        case .string(let text): .text(text)
        case .array(let elements):
            elements.reduce(into: Optional([LedgerDataValue]())) { list, element in
                guard let converted = convert(element) else { list = nil; return }
                list?.append(converted)
            }.map { .list($0) }
        case .object(let members):
            members.reduce(into: Optional(LedgerDataFields())) { object, member in
                guard let converted = convert(member.value) else { object = nil; return }
                object?[member.key] = converted
            }.map { .object($0) }
        case .null, .bool: nil
        }
    }

    /// The JSON form of a value.
    public static func json(_ value: LedgerDataValue) -> JSONValue {
        switch value {
        case .integer(let number): .number(JSONNumber(number))
        case .text(let text): .string(text)
        case .list(let values): .array(values.map(json))
        case .object(let members): .object(members.mapValues(json))
        }
    }

    /// Writes a value (object keys sorted, as ``JSONWriter`` writes every object).
    public static func write(_ value: LedgerDataValue, to writer: inout JSONWriter) { writer.value(json(value)) }
}
