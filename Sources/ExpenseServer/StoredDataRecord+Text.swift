import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// How both persistent stores keep a budget, rule or setting as text: its fields as canonical JSON (sorted
/// keys) and its field versions as a JSON object (``StoredDataRecord/fieldVersions``).
extension StoredDataRecord {
    /// The record's fields as canonical JSON.
    var fieldsText: String {
        var fields = JSONWriter()
        LedgerDataJSON.write(.object(record.fields), to: &fields)
        return String(decoding: fields.bytes, as: UTF8.self)
    }

    /// The field versions as a JSON object.
    var fieldVersionsText: String { JSONValue.object(fieldVersions.mapValues { .number(JSONNumber($0)) }).jsonText }

    /// The record from its stored columns; `nil` when the kind, the fields or the versions do not decode.
    init?(seq: Int64, id: UUID, kind: String, version: Int64, deleted: Bool, fieldsText: String, fieldVersionsText: String) {
        guard let kind = RecordKind(rawValue: kind), kind != .expense,
              case .object(let members)? = try? JSONParser.parse(Array(fieldsText.utf8)),
              case .success(let fields) = LedgerDataJSON.fields(members),
              case .object(let versionMembers)? = try? JSONParser.parse(Array(fieldVersionsText.utf8)) else { return nil }
        self.init(record: DataRecord(kind: kind, id: id, fields: fields, version: version, seq: seq, deleted: deleted),
                  fieldVersions: versionMembers.compactMapValues(\.int64Value))
    }
}
