import ExpenseCore
import FoundationEssentials

extension Record {
    /// Writes `{"amount","category","currency","date","deleted","id","note","seq","version"}` (sorted; id lower case).
    ///
    /// The one layout of a record's object, which a store's pull page written from its rows shares
    /// (``ExpenseFields/writeRecordObject(to:_:deleted:id:seq:version:)``).
    @inline(__always)
    public func write(to writer: inout JSONWriter) {
        withObjectRow { row in
            ExpenseFields.writeRecordObject(to: &writer, row, deleted: deleted, id: expense.id.uuid, seq: seq, version: version)
        }
    }

    /// Reads a record sent by the daemon; its expense goes through the core's validation like any outside input
    /// (``ExpenseValidator/validateStored(_:)``: a record stored before the byte limits is read as it is).
    /// - Throws: ``ProtocolDecodingError`` naming the member under `path`.
    public init(json: JSONValue, path: String = "record") throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        // Every expense field is required but the optional ones (absent: empty), each typed by its one
        // declaration (``ExpenseFields``).
        var fields = MutationFields()
        for field in ExpenseFields.all {
            fields[field.name] = field.optional ? reader.members[field.name] : try reader.value(field.name)
        }
        var draft: ExpenseDraft
        switch ExpenseFields.draft(from: fields) {
        case .success(let typed): draft = typed
        case .failure(let rejection): throw .invalidMember(path: reader.sub(rejection.field ?? ""), detail: rejection.message)
        }
        draft.id = .text(try reader.string("id"))
        let expense: Expense
        do {
            // Stored before the byte limits, a record is still read as it is (Protocol.md §6).
            expense = try ExpenseValidator.validateStored(draft)
        } catch let error as ValidationError {
            throw .invalidMember(path: reader.sub(error.field.rawValue), detail: error.description)
        } catch {
            throw .invalidMember(path: path, detail: "\(error)")
        }
        let version = try reader.int64("version")
        guard version >= 1 else { throw .invalidMember(path: reader.sub("version"), detail: "a version is at least 1") }
        let seq = try reader.int64("seq")
        guard seq >= 0 else { throw .invalidMember(path: reader.sub("seq"), detail: "a seq is not negative") }
        self.init(expense: expense, version: version, seq: seq, deleted: try reader.bool("deleted"))
    }

    /// The record as a JSON value (for tests and tools; hot paths use ``write(to:)``).
    public var json: JSONValue {
        // Written by our own writer, so parsing it back cannot fail.
        var writer = JSONWriter()
        write(to: &writer)
        return (try? JSONParser.parse(writer.bytes)) ?? .null
    }
}
