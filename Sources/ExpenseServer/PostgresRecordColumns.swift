import ExpenseCore
import FoundationEssentials
import PostgreSQL

/// Many `records` rows as one binary array per column (``RecordColumns``' order), for an `INSERT … SELECT * FROM
/// unnest(…)`: each row appends one element to every array, through ``StoredRecord/write(to:)``. For new records'
/// rows (`creations`), only the columns that are not ``RecordColumns/creationConstants``, through
/// ``StoredRecord/writeCreation(to:)``: the constants are written into the statement (``creationSelectList(_:)``).
struct PostgresRecordColumns: RecordColumnWriter {
    private(set) var arrays: [PostgresBinaryArray]
    /// Whether the rows are new records' (only the columns that are not constants).
    let creations: Bool
    /// The column the next value goes to.
    private var column = 0

    init(capacity: Int, creations: Bool = false) {
        self.creations = creations
        arrays = Self.types(creations: creations).map { PostgresBinaryArray(Self.element($0), capacity: capacity) }
    }

    mutating func append(_ record: StoredRecord) {
        column = 0
        // Appending to an array cannot fail; the writer's methods only throw for the stores that bind.
        if creations { try? record.writeCreation(to: &self) } else { try? record.write(to: &self) }
    }

    /// `$first::type[], $first+1::type[], …`: the arrays as `unnest`'s arguments.
    func parameterList(from first: Int) -> String {
        Self.types(creations: creations).enumerated().map { "$\(first + $0.offset)::\(Self.arrayType($0.element))" }
            .joined(separator: ", ")
    }

    /// Every `records` column in ``RecordColumns``' order, for a SELECT over `unnest` of a creation's arrays whose
    /// columns are named `alias` with their position among the arrays (`u0, u1, …`): each constant as PostgreSQL
    /// writes it, the others by name.
    static func creationSelectList(_ alias: String) -> String {
        var next = 0
        return RecordColumns.types.indices.map { position in
            if let constant = RecordColumns.creationConstants[Int32(position)] {
                // A flag's constant is a boolean here (SQLite's 0 and 1 are PostgreSQL's false and true).
                return RecordColumns.types[position] == .flag ? (constant == "0" ? "false" : "true") : constant
            }
            defer { next += 1 }
            return "\(alias)\(next)"
        }.joined(separator: ", ")
    }

    /// The types of the arrays: every column's, or a creation's columns that are not constants.
    private static func types(creations: Bool) -> [RecordColumnType] {
        creations ? creationTypes : RecordColumns.types
    }

    private static let creationTypes = RecordColumns.types.indices
        .filter { RecordColumns.creationConstants[Int32($0)] == nil }.map { RecordColumns.types[$0] }

    mutating func integer(_ value: Int64) throws { next { $0.append(value) } }
    mutating func text(_ value: String) throws { next { $0.append(value) } }
    mutating func id(_ value: UUID) throws { next { $0.append(value) } }
    mutating func flag(_ value: Bool) throws { next { $0.append(value) } }
    /// Every `records` column is NOT NULL.
    mutating func null() throws { throw LedgerError.storageFailed("a NULL written to a records column") }

    private mutating func next(_ append: (inout PostgresBinaryArray) -> Void) {
        append(&arrays[column])
        column += 1
    }

    private static func element(_ type: RecordColumnType) -> PostgresBinaryArray.Element {
        switch type {
        case .integer: .int8
        case .day: .int4
        case .text: .text
        case .flag: .bool
        case .id: .uuid
        }
    }

    private static func arrayType(_ type: RecordColumnType) -> String {
        switch type {
        case .integer: "bigint[]"
        case .day: "integer[]"
        case .text: "text[]"
        case .flag: "boolean[]"
        case .id: "uuid[]"
        }
    }
}

/// A `records` row read from PostgreSQL (text results: the id as its text, a flag `t` or `f`).
extension PostgresRow: RecordColumnReader {
    package func int64(_ column: Int32) -> Int64 { int64(Int(column)) }
    package func text(_ column: Int32) -> String { text(Int(column)) }
    package func isNull(_ column: Int32) -> Bool { optionalText(Int(column)) == nil }
    func id(_ column: Int32) -> UUID? { UUIDText.parse(text(Int(column))) }
    func flag(_ column: Int32) -> Bool { bool(Int(column)) }
}
