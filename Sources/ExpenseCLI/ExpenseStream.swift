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

    init(descriptor: Int32, target: String, format: Format) {
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
            append(CSV.row([expense.idString, expense.date.description, Money.format(expense.amount, currency: expense.currency),
                            expense.currency.code, expense.category, expense.note]))
        case .json:
            append(count == 0 ? "[\n  " : ",\n  ")
            var writer = JSONWriter(appendingTo: buffer)
            buffer = []
            writer.pretty(.object(["amount": .int(expense.amount), "category": .string(expense.category),
                                   "currency": .string(expense.currency.code), "date": .string(expense.date.description),
                                   "id": .string(expense.idString), "note": .string(expense.note)]), depth: 1)
            buffer = writer.bytes
        }
        count += 1
        if buffer.count >= Self.flushSize { try flush() }
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
