import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

/// Writes a listing or an export as it is read from the store, through a 64 KiB buffer, so 100,000 expenses
/// never sit in memory as values or as one big string. JSON is an array of objects, each laid out by
/// ``JSONWriter/pretty(_:depth:)`` as every `--json` is, one object at a time;
/// CSV is ``ExpenseClient/CSV`` rows under ``ExpenseClient/CSVImporter/header``.
struct ExpenseStream {
    enum Format { case json, csv }

    private let descriptor: Int32
    /// What the stream writes to, for the error message (a file name or "standard output").
    private let target: String
    private var buffer: [UInt8] = []
    private(set) var count = 0
    private let format: Format
    /// Names the members of a shared expense's `shares` (JSON), its payer and split (CSV).
    private let members: MemberDirectory

    init(descriptor: Int32, target: String, format: Format, members: MemberDirectory = MemberDirectory(members: [])) {
        self.members = members
        self.descriptor = descriptor
        self.target = target
        self.format = format
        buffer.reserveCapacity(Self.flushSize + 1024)
    }

    static let flushSize = 65_536

    /// The header (CSV, ``ExpenseClient/CSVImporter/header``); JSON opens its bracket with the first row.
    mutating func begin() {
        if format == .csv { append(CSV.row(CSVImporter.header)) }
    }

    /// - Throws: ``CommandFailure`` (exit 74) when the output cannot be written, such as a closed pipe.
    mutating func write(_ expense: Expense) throws(CommandFailure) {
        switch format {
        case .csv:
            append(CSV.row(csvFields(of: expense)))
        case .json:
            append(count == 0 ? "[\n  " : ",\n  ")
            var writer = JSONWriter(appendingTo: buffer)
            buffer = []
            // The fields as the wire writes them (``ExpenseProtocol/ExpenseFields``), and the id.
            var object = ExpenseFields.json(from: expense.draft, omittingEmpty: true)
            object["id"] = .string(expense.idString)
            // A shared expense also carries each member's exact share, which the split gives (never sent).
            if expense.split != nil {
                object["shares"] = .array(expense.shares.map { share in
                    .object(["member": .string(UUIDText.lowercased(share.member)), "name": .string(members.name(share.member)),
                             "amount": .int(share.amount)])
                })
            }
            // Parts as objects a script reads without parsing: each category with its amount in minor units.
            if let parts = expense.parts {
                object["parts"] = .array(parts.parts.map { .object(["category": .string($0.category), "amount": .int($0.amount)]) })
            }
            writer.pretty(.object(object), depth: 1)
            buffer = writer.bytes
        }
        count += 1
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// An expense's fields under ``ExpenseClient/CSVImporter/header``: the id, the date, the amount as decimal
    /// text in its currency, the code, then every other field as its wire text, except that the payer and the
    /// split name members as a person types them (``ExpenseCore/SplitSpec/typedText(currency:name:)``), which
    /// `import` reads back by name (``ExpenseClient/CSVImporter``), and parts are as typed
    /// (``ExpenseCore/ExpenseParts/typedText(currency:)``).
    private func csvFields(of expense: Expense) -> [String] {
        let draft = expense.draft
        return Self.csvColumns.map { column in
            switch column {
            case .id: expense.idString
            case .amount: Money.format(expense.amount, currency: expense.currency)
            case .wire(let wire) where wire.field == .paidBy: expense.paidBy.map(members.name) ?? ""
            case .wire(let wire) where wire.field == .split:
                expense.split?.typedText(currency: expense.currency, name: members.name) ?? ""
            case .wire(let wire) where wire.list: expense.tagsText
            case .wire(let wire) where wire.field == .parts: expense.parts?.typedText(currency: expense.currency) ?? ""
            case .wire(let wire):
                // An optional field left empty is an empty cell (no amount charged: not `0`).
                wire.write(draft).map { wire.optional && ExpenseFields.isEmpty($0) ? "" : ($0.stringValue ?? $0.jsonText) } ?? ""
            }
        }
    }

    private enum CSVColumn { case id, amount, wire(WireField) }

    /// What each column of ``ExpenseClient/CSVImporter/header`` holds, found once.
    private static let csvColumns: [CSVColumn] = CSVImporter.header.map { name in
        if name == "id" { return .id }
        if name == "amount" { return .amount }
        return ExpenseFields.all.first { CSVImporter.columnName($0.field) == name }.map(CSVColumn.wire) ?? .id  // every other name is a field's
    }

    /// The closing bracket (JSON) and whatever is buffered.
    mutating func end() throws(CommandFailure) {
        if format == .json { append(count == 0 ? "[]\n" : "\n]\n") }
        try flush()
    }

    private mutating func append(_ text: String) { buffer.append(contentsOf: text.utf8) }

    private mutating func flush() throws(CommandFailure) {
        guard !buffer.isEmpty else { return }
        if let error = Console.write(descriptor, buffer) {
            throw CommandFailure(.ioError, Console.writeFailure(target, error))
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
