import ExpenseCore
import FoundationEssentials

/// One applied change of one record, as the daemon keeps it in its history (Protocol.md §5.8): which fields
/// changed from what to what, who made it, and when.
public struct HistoryEntry: Hashable, Sendable {
    /// What the change did to the record.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// The record was created (version 1).
        case create
        /// Fields of a live record changed.
        case edit
        /// A live record became a tombstone.
        case delete
        /// A tombstone became live again (a `put` at the tombstone's version).
        case restore
    }

    /// A field's value in a history entry. Money is one value, amount and currency together (Protocol.md §7.4).
    public enum Value: Hashable, Sendable {
        /// An expense's money: its amount and currency, its split's canonical text (empty: not shared), and the
        /// amount charged in minor units of the ledger's currency (0: none), and its parts' text (empty: none).
        case money(amount: Int64, currency: Currency, split: String = "", charged: Int64 = 0, parts: String = "")
        case text(String)
        /// A budget's, rule's or setting's field as its record holds it (Protocol.md §10.2); `nil`: the field was
        /// removed (written as JSON `null`, a value those records never hold).
        case data(LedgerDataValue?)
    }

    /// One field's change: `from` is `nil` for a create.
    public struct Change: Hashable, Sendable {
        /// `money`, `category`, `date` or `note`.
        public var field: String
        public var from: Value?
        public var to: Value

        public init(field: String, from: Value?, to: Value) {
            self.field = field
            self.from = from
            self.to = to
        }
    }

    /// The fields an expense's change can name, in the order entries list them: one per conflict group
    /// (``ExpenseCore/ExpenseField/conflictGroups``), `money`, `category`, `date`, `note`.
    public static let fieldNames = ExpenseField.conflictGroups.map(\.conflictGroupName)

    /// The kind of the record it changed (Protocol.md §10): `expense` unless it is one of the other kinds.
    public var kind: RecordKind = .expense
    /// The ledger-wide seq the change took.
    public var seq: Int64
    /// The record it changed.
    public var id: UUID
    /// The record's version after the change.
    public var version: Int64
    public var action: Action
    /// The fields that changed, in ``fieldNames`` order (empty for a delete).
    public var changes: [Change]
    /// Who made it: the name the client gave (`clientName`, or the token's name where tokens have one);
    /// `nil` when it gave none.
    public var who: String?
    /// The client installation whose push it was.
    public var clientId: UUID
    /// The daemon's clock when the change was applied, in whole seconds since 1970-01-01T00:00:00Z.
    public var time: Int64

    public init(seq: Int64, id: UUID, version: Int64, action: Action, changes: [Change], who: String?, clientId: UUID,
                time: Int64) {
        self.seq = seq
        self.id = id
        self.version = version
        self.action = action
        self.changes = changes
        self.who = who
        self.clientId = clientId
        self.time = time
    }

    /// The change from `old` (nil: a create) to `new`, fields compared as the conflict rules compare them (text
    /// by its bytes, money as one pair). A create lists every group but an optional one left empty
    /// (``ExpenseFields/isEmptyOptional(_:in:)``: no payer), as a record leaves it out.
    public static func changes(from old: Expense?, to new: Expense) -> [Change] {
        var changes: [Change] = []
        for group in ExpenseField.conflictGroups {
            if let old, group.conflictGroup.allSatisfy({ $0.same(old, new) }) { continue }
            if old == nil, ExpenseFields.isEmptyOptional(group, in: new) { continue }
            changes.append(Change(field: group.conflictGroupName, from: old.map { ExpenseFields.historyValue(of: group, in: $0) },
                                  to: ExpenseFields.historyValue(of: group, in: new)))
        }
        return changes
    }
}

extension HistoryEntry.Value {
    /// Writes `{"amount":…,"charged"?:…,"currency":…,"parts"?:…,"split"?:…}` for money (`charged` only when there
    /// is an amount charged, `parts` only when it has some, `split` only when shared), a string otherwise.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .money(let amount, let currency, let split, let charged, let parts):
            Self.writeMoney(amount: amount, currency: currency, split: split, charged: charged, parts: parts, to: &writer)
        case .text(let text):
            writer.string(text)
        case .data(let value?):
            LedgerDataJSON.write(value, to: &writer)
        case .data(nil):
            writer.value(.null)
        }
    }

    /// `{"amount":…,"currency":…}`, keys as fixed fragments (the same bytes as `key(_:)` writes): this runs for
    /// every money change.
    static func writeMoney(amount: Int64, currency: Currency, split: String = "", charged: Int64 = 0, parts: String = "",
                           to writer: inout JSONWriter) {
        writer.beginObject()
        writer.raw("\"amount\":")
        writer.int64(amount)
        if charged != 0 {
            writer.raw(",\"charged\":")
            writer.int64(charged)
        }
        writer.raw(",\"currency\":")
        writer.string(currency.code)
        if !parts.isEmpty {
            writer.raw(",\"parts\":")
            writer.string(parts)
        }
        if !split.isEmpty {
            writer.raw(",\"split\":")
            writer.string(split)
        }
        writer.endObject()
    }

    init(json: JSONValue, path: String) throws(ProtocolDecodingError) {
        if let text = json.stringValue {
            self = .text(text)
            return
        }
        let reader = try ResultReader(json, path: path)
        let code = try reader.string("currency")
        guard let currency = Currency(code: code) else { throw .invalidMember(path: reader.sub("currency"), detail: "unknown currency") }
        let charged = reader.members["charged"] == nil ? 0 : try reader.int64("charged")
        self = .money(amount: try reader.int64("amount"), currency: currency, split: try reader.optionalString("split") ?? "",
                      charged: charged, parts: try reader.optionalString("parts") ?? "")
    }
}

extension HistoryEntry {
    /// Writes `{"action","changes":{field:{"from"?,"to"}},"clientId","id","kind"?,"seq","time","version","who"?}`
    /// (`kind` only for a record other than an expense, as records write it).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("action", action.rawValue)
        writer.key("changes")
        writeChanges(to: &writer)
        writer.key("clientId")
        writer.uuid(clientId)
        writer.key("id")
        writer.uuid(id)
        if kind != .expense { writer.member("kind", kind.rawValue) }
        writer.member("seq", seq)
        writer.member("time", time)
        writer.member("version", version)
        if let who { writer.member("who", who) }
        writer.endObject()
    }

    /// Only the `changes` object, as a store keeps it (`SQLiteLedgerStore+History.swift`).
    public var changesJSON: [UInt8] { Self.changesJSON(of: changes) }

    /// ``changesJSON`` of an entry whose changes are `changes`: what a store keeps, made without the entry (the
    /// daemon writes a create's before its seq is known).
    public static func changesJSON(of changes: [Change]) -> [UInt8] {
        var writer = JSONWriter(capacity: 160)
        writeChanges(changes, to: &writer)
        return writer.bytes
    }

    /// ``changesJSON`` of the entry of `expense`'s creation, written straight from the expense: the bytes
    /// `changesJSON(of: changes(from: nil, to: expense))` writes (HistoryChangesOrderTests), without making the
    /// changes first. A create changes every field from nothing; its members in byte order (category, date,
    /// money, note). The daemon writes one per create, off the ledger's thread.
    public static func creationChangesJSON(of expense: Expense) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writeCreationChanges(of: expense, to: &writer)
        return writer.bytes
    }

    /// Appends ``creationChangesJSON(of:)`` to what `writer` holds (a push's creations end to end, in one buffer).
    public static func writeCreationChanges(of expense: Expense, to writer: inout JSONWriter) {
        // Fragments made once: the bytes `writeName`, `write(_:to:)` and `Value.write(to:)` write for these changes.
        // One buffer of openings and a layout of plain values: no reference counted per member.
        creationOpenings.withUnsafeBufferPointer { openings in
            var start = 0
            var first = true
            for (group, end) in creationLayout {
                defer { start = end }
                if ExpenseFields.isEmptyOptional(group, in: expense) { continue }
                writer.raw(first ? "{" : "},")
                first = false
                writer.raw(bytes: UnsafeBufferPointer(rebasing: openings[start..<end]))
                ExpenseFields.writeHistoryValue(of: group, in: expense, to: &writer)
            }
        }
        writer.raw("}}")
    }

    /// The conflict groups in byte order of their names.
    private static let groupsInByteOrder = ExpenseField.conflictGroups.sorted {
        $0.conflictGroupName.utf8.lexicographicallyPrecedes($1.conflictGroupName.utf8)
    }

    /// What opens each group's member in a creation's `changes` after its separator (`{` or `},`), back to back:
    /// `"category":{"to":`, `"date":{"to":`, ….
    private static let creationOpenings: [UInt8] = groupsInByteOrder.flatMap { group in
        Array((JSONWriter.quoted(group.conflictGroupName) + #":{"to":"#).utf8)
    }

    /// Each group in ``groupsInByteOrder`` with where its opening ends in ``creationOpenings``.
    private static let creationLayout: [(group: ExpenseField, end: Int)] = {
        var end = 0
        return groupsInByteOrder.map { group in
            end += (JSONWriter.quoted(group.conflictGroupName) + #":{"to":"#).utf8.count
            return (group, end)
        }
    }()

    /// Writes the `changes` object, members in byte order.
    func writeChanges(to writer: inout JSONWriter) { Self.writeChanges(changes, to: &writer) }

    private static func writeChanges(_ changes: [Change], to writer: inout JSONWriter) {
        writer.beginObject()
        // This runs for every applied change. The changes are almost always in byte order already (a budget's,
        // rule's or setting's are made so) or in ``fieldNames`` order (an expense's), so neither is sorted: an
        // expense's are written by the fixed byte order of its field names. Anything else is sorted, compared on
        // the UTF-8 views (no array per comparison). HistoryCodingTests compares the three ways.
        if isInByteOrder(changes) {
            for change in changes { write(change, to: &writer) }
        } else if changes.allSatisfy({ fieldNames.contains($0.field) }) {
            // Each name's changes in their order, as the (stable) sort leaves them.
            for name in fieldNamesInByteOrder {
                for change in changes where change.field == name { write(change, to: &writer) }
            }
        } else {
            for change in changes.sorted(by: { $0.field.utf8.lexicographicallyPrecedes($1.field.utf8) }) {
                write(change, to: &writer)
            }
        }
        writer.endObject()
    }

    /// ``fieldNames`` in byte order: `category`, `date`, `money`, `note`.
    static let fieldNamesInByteOrder = fieldNames.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

    /// Whether each change's field comes after the one before it in byte order (as the sort would leave them).
    private static func isInByteOrder(_ changes: [Change]) -> Bool {
        var previous: String?
        for change in changes {
            if let previous, !previous.utf8.lexicographicallyPrecedes(change.field.utf8) { return false }
            previous = change.field
        }
        return true
    }

    /// One member of the `changes` object: `"field":{"from"?:…,"to":…}`.
    private static func write(_ change: Change, to writer: inout JSONWriter) {
        writeName(change.field, to: &writer)
        writer.beginObject()
        // `"from":` and `"to":` as fixed fragments, the bytes `key(_:)` would write (HistoryCodingTests).
        if let from = change.from {
            writer.raw("\"from\":")
            from.write(to: &writer)
            writer.raw(",\"to\":")
        } else {
            writer.raw("\"to\":")
        }
        change.to.write(to: &writer)
        writer.endObject()
    }

    /// A change's field name as a member key: an expense's names as fragments made once (every applied change
    /// writes them), any other through `key(_:)`; the same bytes either way.
    private static func writeName(_ field: String, to writer: inout JSONWriter) {
        for (name, fragment) in nameFragments where name == field {
            writer.separate()
            writer.raw(bytes: fragment)
            return
        }
        writer.key(field)
    }

    /// Each of ``fieldNames`` with its key's bytes, `"money":`.
    private static let nameFragments: [(String, [UInt8])] = fieldNames.map { ($0, Array((JSONWriter.quoted($0) + ":").utf8)) }

    /// The `changes` object as the general path writes it, sorted every time and every key through
    /// `key(_:)`, no fixed fragment (the reference of HistoryChangesOrderTests).
    func sortedChangesJSON() -> [UInt8] {
        func write(_ value: Value, to writer: inout JSONWriter) {
            guard case .money(let amount, let currency, let split, let charged, let parts) = value else { return value.write(to: &writer) }
            writer.object { writer in
                writer.member("amount", amount)
                if charged != 0 { writer.member("charged", charged) }
                writer.member("currency", currency.code)
                if !parts.isEmpty { writer.member("parts", parts) }
                if !split.isEmpty { writer.member("split", split) }
            }
        }
        var writer = JSONWriter()
        writer.beginObject()
        for change in changes.sorted(by: { $0.field.utf8.lexicographicallyPrecedes($1.field.utf8) }) {
            writer.key(change.field)
            writer.beginObject()
            if let from = change.from {
                writer.key("from")
                write(from, to: &writer)
            }
            writer.key("to")
            write(change.to, to: &writer)
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes
    }

    /// Reads a `changes` object (the wire's, or a store's copy of it), in ``fieldNames`` order; for a budget,
    /// rule or setting (`kind`), every member in byte order, values as their records hold them.
    public static func changes(json: JSONValue, path: String, kind: RecordKind = .expense) throws(ProtocolDecodingError) -> [Change] {
        guard let members = json.objectValue else { throw .invalidMember(path: path, detail: "expected an object") }
        var changes: [Change] = []
        if kind != .expense {
            for field in members.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                let reader = try ResultReader(members[field] ?? .null, path: path + "." + field)
                func value(_ json: JSONValue?) throws(ProtocolDecodingError) -> Value? {
                    guard let json else { return nil }
                    if case .null = json { return .data(nil) }
                    guard let converted = LedgerDataJSON.convert(json) else {
                        throw .invalidMember(path: reader.sub("to"), detail: "expected an integer, string, list or object")
                    }
                    return .data(converted)
                }
                guard let to = try value(reader.members["to"]) else { throw .invalidMember(path: reader.sub("to"), detail: "missing") }
                changes.append(Change(field: field, from: try value(reader.members["from"]), to: to))
            }
            return changes
        }
        for field in fieldNames {
            guard let member = members[field] else { continue }
            let reader = try ResultReader(member, path: path + "." + field)
            let from = try reader.members["from"].map { (value) throws(ProtocolDecodingError) in
                try Value(json: value, path: reader.sub("from"))
            }
            changes.append(Change(field: field, from: from, to: try Value(json: try reader.value("to"), path: reader.sub("to"))))
        }
        return changes
    }

    /// Reads one entry of a `history` result.
    public init(json: JSONValue, path: String) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: path)
        guard let action = Action(rawValue: try reader.string("action")) else {
            throw .invalidMember(path: reader.sub("action"), detail: "expected create, edit, delete or restore")
        }
        func uuid(_ key: String) throws(ProtocolDecodingError) -> UUID {
            guard let id = UUID(uuidString: try reader.string(key)) else { throw .invalidMember(path: reader.sub(key), detail: "expected a UUID") }
            return id
        }
        var kind = RecordKind.expense
        if let name = try reader.optionalString("kind") {
            guard let named = RecordKind(rawValue: name) else { throw .invalidMember(path: reader.sub("kind"), detail: "unknown kind") }
            kind = named
        }
        self.init(seq: try reader.int64("seq"), id: try uuid("id"), version: try reader.int64("version"), action: action,
                  changes: try Self.changes(json: try reader.value("changes"), path: reader.sub("changes"), kind: kind),
                  who: try reader.optionalString("who"), clientId: try uuid("clientId"), time: try reader.int64("time"))
        self.kind = kind
    }
}

extension HistoryEntry {
    /// The changes of a budget, rule or setting from `old` (nil: a create, which lists every field) to `new`:
    /// one per field whose value differs (``LedgerDataValue/same(as:)``), in byte order of the field names; a
    /// field `new` no longer has goes to ``Value/data(_:)`` `nil`.
    public static func changes(from old: LedgerDataFields?, to new: LedgerDataFields) -> [Change] {
        var keys = Set(new.keys)
        if let old { keys.formUnion(old.keys) }
        let names = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var changes: [Change] = []
        for name in names {
            let before = old?[name], after = new[name]
            if old != nil, let before, let after, before.same(as: after) { continue }
            if old != nil, before == nil, after == nil { continue }
            changes.append(Change(field: name, from: old == nil ? nil : .data(before), to: .data(after)))
        }
        return changes
    }
}
