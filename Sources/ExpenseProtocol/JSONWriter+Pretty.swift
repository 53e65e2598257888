/// The indented layout the command-line programs print: `JSONEncoder`'s `.prettyPrinted` + `.sortedKeys`
/// (two spaces per level, `"key" : value`, members sorted by the bytes of their names), so a person can read
/// it and a script can diff it. Scalars are written by ``JSONWriter``'s own methods (one string escaping).
extension JSONWriter {
    /// Writes `value` laid out over lines, its first line indented by nothing and the rest as at `depth`
    /// (an element of a top-level array is at depth 1). An empty array or object is `[]` or `{}`.
    public mutating func pretty(_ value: JSONValue, depth: Int = 0) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            separate()
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                newline(depth + 1, comma: index > 0)
                pretty(element, depth: depth + 1)
            }
            newline(depth, comma: false)
            bytes.append(UInt8(ascii: "]"))
            needsComma = true
        case .object(let members) where !members.isEmpty:
            separate()
            bytes.append(UInt8(ascii: "{"))
            for (index, name) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                newline(depth + 1, comma: index > 0)
                string(name)
                bytes.append(contentsOf: " : ".utf8)
                needsComma = false
                if let member = members[name] { pretty(member, depth: depth + 1) }
            }
            newline(depth, comma: false)
            bytes.append(UInt8(ascii: "}"))
            needsComma = true
        default:
            self.value(value)
        }
    }

    /// `value` laid out as ``pretty(_:depth:)`` writes it, and a final newline: what a `--json` prints.
    public static func prettyText(_ value: JSONValue) -> String {
        var writer = JSONWriter(capacity: 1024)
        writer.pretty(value)
        writer.bytes.append(UInt8(ascii: "\n"))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `,` when `comma`, then a line break and two spaces per level; the next value gets no comma of its own.
    private mutating func newline(_ depth: Int, comma: Bool) {
        if comma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        needsComma = false
    }
}

extension JSONValue {
    /// An integer, such as an amount in minor units.
    public static func int(_ value: Int64) -> JSONValue { .number(JSONNumber(value)) }

    /// An integer count.
    public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(Int64(value))) }

    /// The text, or `null`.
    public static func string(orNull text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}
