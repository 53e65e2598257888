/// A statement parameter, sent in PostgreSQL's text format (the server casts it to the column's type).
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case bool(Bool)

    /// The text form libpq sends, `nil` for NULL.
    var textForm: String? {
        switch self {
        case .null: nil
        case .text(let text): text
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "t" : "f"
        }
    }
}

extension PostgresValue {
    /// A one-dimensional array in PostgreSQL's text form (`{"a","b",NULL}`), for `unnest($1::text[])`: many
    /// rows in one statement and one round trip.
    public static func array(_ elements: [PostgresValue]) -> PostgresValue {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            guard let form = element.textForm else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in form.unicodeScalars {
                if character == "\"" || character == "\\" { text += "\\" }
                text.unicodeScalars.append(character)
            }
            text += "\""
        }
        return .text(text + "}")
    }
}
