import CLibPQ

/// The rows of one statement, copied out of libpq's `PGresult` as text (the text format: every value is its
/// PostgreSQL text form, or `nil` for NULL).
public struct PostgresResult: Sendable {
    /// The column names, in order.
    public let columns: [String]
    /// Each row's values, `nil` for NULL.
    public let rows: [[String?]]
    /// The number of rows a command changed (`UPDATE`, `INSERT`, `DELETE`), 0 for others.
    public let affectedRows: Int

    init(_ result: OpaquePointer) {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            rows.append((0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) != 0
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            })
        }
        self.rows = rows
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The first row, if any.
    public var first: PostgresRow? { rows.first.map(PostgresRow.init) }

    /// Every row.
    public var all: [PostgresRow] { rows.map(PostgresRow.init) }
}

/// One row of a ``PostgresResult``, read by column position.
public struct PostgresRow: Sendable {
    public let values: [String?]

    /// The text of column `index`; `""` for NULL.
    public func text(_ index: Int) -> String { values[index] ?? "" }

    /// The text of column `index`, `nil` for NULL.
    public func optionalText(_ index: Int) -> String? { values[index] }

    /// Column `index` as an integer; 0 for NULL or a value that is not one.
    public func int64(_ index: Int) -> Int64 { values[index].flatMap { Int64($0) } ?? 0 }

    /// Column `index` as an integer, `nil` for NULL.
    public func optionalInt64(_ index: Int) -> Int64? { values[index].flatMap { Int64($0) } }

    /// Column `index` as a boolean (`t`/`f`).
    public func bool(_ index: Int) -> Bool { values[index] == "t" }
}
