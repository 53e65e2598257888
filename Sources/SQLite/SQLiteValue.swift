/// A value bound to a statement parameter. There is deliberately no floating-point case: nothing here
/// stores money, or anything else, in floating point.
public enum SQLiteValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue {
    /// `.integer`, or `.null` for `nil`.
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    /// `.integer(Int64(value))`.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// `.text`, or `.null` for `nil`.
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    /// `.integer(1)` or `.integer(0)`.
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
