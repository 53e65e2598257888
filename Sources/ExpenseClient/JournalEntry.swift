import ExpenseCore
import ExpenseProtocol
import Foundation

/// One local command of this machine, as `expense undo --last` reverts it: an expense command (`add`, `edit`,
/// `delete`, `import`, an `undo` of one) with the expense before and after it, or a command on other records
/// (`rule add`, `budget set`, …, an `undo` of one) with every record it changed. An `import` is one entry however
/// many rows it created: it names the first of them and their count (``rows``); the ids of all of them are kept
/// apart, for the latest import only (``ImportJournal``), so the journal stays small and bounded whatever the
/// imports' sizes.
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

    /// What the command changed.
    package enum Subject: Hashable, Sendable {
        /// One expense: before the command (`nil` for an add or an import) and after it.
        case expense(before: State?, after: State)
        /// Budgets, rules, rates, recurring rules or settings, in the order the command changed them.
        case records([RecordStep])
    }

    /// The command as the person typed its name: `add`, `edit`, `delete`, `undo`, `import`, `rule move`, ….
    package var command: String
    /// The expense, or the first record the command changed.
    package var id: UUID
    package var subject: Subject
    /// Seconds since 1970.
    package var time: Int64
    /// Set once `undo --last` reverted it.
    package var undone: Bool
    /// For an `import`: how many rows it created (`id` and `after` are the first of them); `nil` otherwise.
    package var rows: Int?

    /// An expense command's entry.
    package init(command: String, id: UUID, before: State?, after: State, time: Int64, undone: Bool = false, rows: Int? = nil) {
        self.init(command: command, id: id, subject: .expense(before: before, after: after), time: time, undone: undone, rows: rows)
    }

    /// A command's entry.
    package init(command: String, id: UUID, subject: Subject, time: Int64, undone: Bool = false, rows: Int? = nil) {
        self.command = command
        self.id = id
        self.subject = subject
        self.time = time
        self.undone = undone
        self.rows = rows
    }

    /// Every record the command changed: the expense, or each budget, rule or other record.
    package var ids: [UUID] {
        switch subject {
        case .expense: [id]
        case .records(let steps): steps.map(\.id)
        }
    }

    /// Whether the command changed the record `id`.
    package func names(_ id: UUID) -> Bool { ids.contains(id) }

    /// The expense before an expense command; `nil` for an add, an import, or a command on other records.
    package var before: State? {
        if case .expense(let before, _) = subject { before } else { nil }
    }

    /// The expense after an expense command; `nil` for a command on other records.
    package var after: State? {
        if case .expense(_, let after) = subject { after } else { nil }
    }

    /// How many entries the journal keeps (the oldest go first).
    package static let capacity = 50

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        switch subject {
        case .expense(let before, let after):
            if let before { writer.key("before"); Self.write(before, to: &writer) }
            writer.key("after")
            Self.write(after, to: &writer)
        case .records:
            break
        }
        writer.member("command", command)
        writer.key("id")
        writer.uuid(id)
        if case .records(let steps) = subject {
            writer.key("records")
            writer.beginArray()
            for step in steps { step.write(to: &writer) }
            writer.endArray()
        }
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
              let id = members["id"]?.stringValue.flatMap(UUIDText.parse), let time = members["time"]?.int64Value else { return nil }
        let subject: Subject
        if let steps = members["records"]?.arrayValue {
            let decoded = steps.compactMap(RecordStep.init(json:))
            guard decoded.count == steps.count, !decoded.isEmpty else { return nil }
            subject = .records(decoded)
        } else {
            guard let after = Self.state(members["after"], id: id) else { return nil }
            subject = .expense(before: members["before"].flatMap { Self.state($0, id: id) }, after: after)
        }
        self.init(command: command, id: id, subject: subject, time: time, undone: members["undone"]?.boolValue ?? false,
                  rows: members["rows"]?.int64Value.map { Int($0) })
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
