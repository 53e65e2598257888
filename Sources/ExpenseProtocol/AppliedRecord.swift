import ExpenseCore
import FoundationEssentials

/// The record an `applied` mutation left, as the daemon stored it (Protocol.md §5.2, the additive `record`
/// member): an expense's record, or a budget's, recurring rule's or setting's, in the shape a pull page writes
/// each (a tombstone, `"deleted":true`, for a delete). Its version and seq are the answer's.
public enum AppliedRecord: Hashable, Sendable {
    /// An expense's record (no `kind` member on the wire).
    case expense(Record)
    /// A budget's, a recurring rule's or a setting's record (Protocol.md §10.2).
    case data(DataRecord)

    /// The record's id.
    public var id: UUID {
        switch self {
        case .expense(let record): record.expense.id
        case .data(let record): record.id
        }
    }

    /// The record's kind.
    public var kind: RecordKind {
        switch self {
        case .expense: .expense
        case .data(let record): record.kind
        }
    }

    /// The record's version.
    public var version: Int64 {
        switch self {
        case .expense(let record): record.version
        case .data(let record): record.version
        }
    }

    /// The record's seq.
    public var seq: Int64 {
        switch self {
        case .expense(let record): record.seq
        case .data(let record): record.seq
        }
    }

    /// Writes the record's object, as a pull page does (``Record/write(to:)``, ``DataRecord/write(to:)``).
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .expense(let record): record.write(to: &writer)
        case .data(let record): record.write(to: &writer)
        }
    }

    /// Reads a record the daemon sent, through the validation a pulled record goes through
    /// (``Record/init(json:path:)``, ``DataRecord/init(json:path:)``): a `kind` member makes it another kind's.
    /// - Throws: ``ProtocolDecodingError`` naming the member under `path`.
    public init(json: JSONValue, path: String) throws(ProtocolDecodingError) {
        if json["kind"] != nil {
            self = .data(try DataRecord(json: json, path: path))
        } else {
            self = .expense(try Record(json: json, path: path))
        }
    }
}
