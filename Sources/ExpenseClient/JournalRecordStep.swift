import ExpenseCore
import ExpenseProtocol
import Foundation

extension JournalEntry {
    /// One budget, rule, rate, recurring rule or setting as a journaled command found it and left it: what
    /// `expense undo` puts back, and what it checks is still there first.
    package struct RecordStep: Hashable, Sendable {
        package var kind: RecordKind
        package var id: UUID
        /// Its fields before the command; `nil` when it had no live record (new, or deleted).
        package var before: LedgerDataFields?
        /// Its fields after the command; `nil` when the command deleted it.
        package var after: LedgerDataFields?

        package init(kind: RecordKind, id: UUID, before: LedgerDataFields?, after: LedgerDataFields?) {
            self.kind = kind
            self.id = id
            self.before = before
            self.after = after
        }

        /// The step that reverts this one.
        package var reversed: RecordStep { RecordStep(kind: kind, id: id, before: after, after: before) }

        /// Whether `fields` (a record's live fields, `nil` for none) are what this step left: the same fields,
        /// each value the same (``ExpenseCore/LedgerDataValue/same(as:)``).
        package func left(_ fields: LedgerDataFields?) -> Bool {
            switch (after, fields) {
            case (nil, nil): return true
            case (let expected?, let actual?):
                return Set(expected.keys) == Set(actual.keys)
                    && expected.allSatisfy { name, value in actual[name].map { $0.same(as: value) } ?? false }
            default: return false
            }
        }

        func write(to writer: inout JSONWriter) {
            writer.beginObject()
            if let after { writer.key("after"); LedgerDataJSON.write(.object(after), to: &writer) }
            if let before { writer.key("before"); LedgerDataJSON.write(.object(before), to: &writer) }
            writer.key("id")
            writer.uuid(id)
            writer.member("kind", kind.rawValue)
            writer.endObject()
        }

        init?(json: JSONValue) {
            guard let members = json.objectValue, let kind = members["kind"]?.stringValue.flatMap(RecordKind.init(rawValue:)),
                  kind != .expense, let id = members["id"]?.stringValue.flatMap(UUIDText.parse) else { return nil }
            func fields(_ name: String) -> LedgerDataFields?? {
                guard let value = members[name] else { return .some(nil) }
                guard let object = value.objectValue, case .success(let fields) = LedgerDataJSON.fields(object) else { return nil }
                return .some(fields)
            }
            guard let before = fields("before"), let after = fields("after") else { return nil }
            self.init(kind: kind, id: id, before: before, after: after)
        }
    }
}
