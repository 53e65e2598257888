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

    /// The bytes of column `index` selected as `encode(column, 'hex')` (so whatever the server's `bytea_output`);
    /// `nil` for NULL or text that is not an even number of hexadecimal digits.
    public func hexBytes(_ index: Int) -> [UInt8]? {
        guard let text = values[index] else { return nil }
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
