import ExpenseCore
import ExpenseProtocol
import Foundation

/// One local command of this machine (`add`, `edit`, `delete`, `undo`, `import`), as `expense undo --last`
/// reverts it: the expense before and after it. An `import` is one entry however many rows it created: it names
/// the first of them and their count (``rows``); the ids of all of them are kept apart, for the latest import only
/// (``ImportJournal``), so the journal stays small and bounded whatever the imports' sizes.
package struct JournalEntry: Hashable, Sendable {
    /// A state of the expense: its fields, and whether it was deleted.
    package struct State: Hashable, Sendable {
        package var expense: Expense
        package var deleted: Bool

        package init(expense: Expense, deleted: Bool) {
            self.expense = expense
            self.deleted = deleted
        }
    }

    /// `add`, `edit`, `delete`, `undo` or `import`.
    package var command: String
    package var id: UUID
    /// `nil` for an `add`.
    package var before: State?
    package var after: State
    /// Seconds since 1970.
    package var time: Int64
    /// Set once `undo --last` reverted it.
    package var undone: Bool
    /// For an `import`: how many rows it created (`id` and `after` are the first of them); `nil` otherwise.
    package var rows: Int?

    package init(command: String, id: UUID, before: State?, after: State, time: Int64, undone: Bool = false, rows: Int? = nil) {
        self.command = command
        self.id = id
        self.before = before
        self.after = after
        self.time = time
        self.undone = undone
        self.rows = rows
    }

    /// How many entries the journal keeps (the oldest go first).
    package static let capacity = 50

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let before { writer.key("before"); Self.write(before, to: &writer) }
        writer.key("after")
        Self.write(after, to: &writer)
        writer.member("command", command)
        writer.key("id")
        writer.uuid(id)
        if let rows { writer.member("rows", Int64(rows)) }
        writer.member("time", time)
        writer.member("undone", undone)
        writer.endObject()
    }

    private static func write(_ state: State, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("deleted")
        writer.bool(state.deleted)
        writer.key("fields")
        writer.value(.object(ExpenseFields.json(from: state.expense.draft)))
        writer.endObject()
    }

    private static func state(_ json: JSONValue?, id: UUID) -> State? {
        guard let members = json?.objectValue, let deleted = members["deleted"]?.boolValue,
              let fields = members["fields"]?.objectValue,
              case .success(var draft) = ExpenseFields.draft(from: fields.filter { $0.key != "id" }) else { return nil }
        draft.id = .value(id)
        guard let expense = try? ExpenseValidator.validateStored(draft) else { return nil }
        return State(expense: expense, deleted: deleted)
    }

    init?(json: JSONValue) {
        guard let members = json.objectValue, let command = members["command"]?.stringValue,
              let id = members["id"]?.stringValue.flatMap(UUIDText.parse), let time = members["time"]?.int64Value,
              let after = Self.state(members["after"], id: id) else { return nil }
        self.init(command: command, id: id, before: members["before"].flatMap { Self.state($0, id: id) }, after: after,
                  time: time, undone: members["undone"]?.boolValue ?? false, rows: members["rows"]?.int64Value.map { Int($0) })
    }

    /// The journal as a store keeps it (one meta value), and back.
    static func encode(_ entries: [JournalEntry]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for entry in entries { entry.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func decode(_ text: String?) -> [JournalEntry] {
        guard let text, let array = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return array.compactMap(JournalEntry.init(json:))
    }
}
