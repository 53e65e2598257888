import FoundationEssentials

/// A one-dimensional array parameter in PostgreSQL's binary format (what the server's `array_recv` reads), for
/// `unnest($2::uuid[], …)` statements that write many rows in one go: the server copies each element instead of
/// parsing its text (a UUID's 36 characters, an integer's digits), and the daemon writes fixed-width bytes
/// instead of formatting them.
///
/// Layout (PostgreSQL's `array_send`): dimensions (1, or 0 when empty), a has-NULL flag, the element type's OID,
/// then for the one dimension its length and lower bound (1); then each element as a 4-byte length (−1 for NULL)
/// and its bytes. Every integer is big-endian. Elements: `bool` one byte, `int2`/`int4`/`int8` two, four or eight
/// bytes, `uuid` its 16 bytes in order, `text` its UTF-8 bytes, `bytea` its bytes.
///
/// - Important: The statement must cast the parameter to the array type of ``element`` (`$2::integer[]` for
///   ``Element/int4``): the server checks the element type written here against it and refuses another.
public struct PostgresBinaryArray: Sendable {
    /// The element types the store sends.
    public enum Element: Sendable {
        case bool, bytea, int2, int4, int8, text, uuid

        /// The element type's OID (`pg_type`).
        var oid: UInt32 {
            switch self {
            case .bool: 16
            case .bytea: 17
            case .int2: 21
            case .int4: 23
            case .int8: 20
            case .text: 25
            case .uuid: 2950
            }
        }

        /// The OID of the array type of this element (`pg_type.typarray`).
        var arrayOid: UInt32 {
            switch self {
            case .bool: 1000
            case .bytea: 1001
            case .int2: 1005
            case .int4: 1007
            case .int8: 1016
            case .text: 1009
            case .uuid: 2951
            }
        }
    }

    public let element: Element
    /// The elements, each with its length; the header is written by ``value``.
    private var elements: [UInt8] = []
    /// How many elements were appended.
    public private(set) var count = 0
    private var hasNull = false

    /// An empty array of `element`s, with room for `capacity` of them.
    public init(_ element: Element, capacity: Int = 0) {
        self.element = element
        let width = switch element {
        case .bool: 1
        case .int2: 2
        case .int4: 4
        case .int8: 8
        case .uuid: 16
        case .text, .bytea: 12
        }
        elements.reserveCapacity(capacity * (4 + width))
    }

    /// Appends an integer of an `int2`, `int4` or `int8` array.
    /// - Precondition: the array holds integers and `value` fits its width (a programmer error otherwise).
    public mutating func append(_ value: Int64) {
        switch element {
        case .int8:
            appendBigEndian(Int32(8))
            appendBigEndian(value)
        case .int4:
            precondition(Int64(Int32.min) ... Int64(Int32.max) ~= value, "\(value) does not fit an int4 element")
            appendBigEndian(Int32(4))
            appendBigEndian(Int32(value))
        case .int2:
            precondition(Int64(Int16.min) ... Int64(Int16.max) ~= value, "\(value) does not fit an int2 element")
            appendBigEndian(Int32(2))
            appendBigEndian(Int16(value))
        default:
            preconditionFailure("an integer appended to a \(element) array")
        }
        count += 1
    }

    /// Appends a boolean of a `bool` array.
    public mutating func append(_ flag: Bool) {
        precondition(element == .bool, "a boolean appended to a \(element) array")
        appendBigEndian(Int32(1))
        elements.append(flag ? 1 : 0)
        count += 1
    }

    /// Appends a text of a `text` array (its UTF-8 bytes).
    public mutating func append(_ text: String) {
        precondition(element == .text, "a text appended to a \(element) array")
        var text = text
        text.withUTF8 { appendElement($0) }
    }

    /// Appends a text of a `text` array given as its UTF-8 bytes (valid UTF-8 without NUL: the server refuses
    /// the parameter otherwise).
    public mutating func append(utf8 bytes: ArraySlice<UInt8>) {
        precondition(element == .text, "a text appended to a \(element) array")
        bytes.withUnsafeBufferPointer { appendElement($0) }
    }

    /// Appends an id of a `uuid` array.
    public mutating func append(_ id: UUID) {
        precondition(element == .uuid, "a UUID appended to a \(element) array")
        appendBigEndian(Int32(16))
        withUnsafeBytes(of: id.uuid) { raw in raw.withMemoryRebound(to: UInt8.self) { elements.append(contentsOf: $0) } }
        count += 1
    }

    /// Appends the bytes of a `bytea` array.
    public mutating func append(bytes: some Collection<UInt8>) {
        precondition(element == .bytea, "bytes appended to a \(element) array")
        appendBigEndian(Int32(bytes.count))
        elements.append(contentsOf: bytes)
        count += 1
    }

    /// Appends NULL.
    public mutating func appendNull() {
        appendBigEndian(Int32(-1))
        hasNull = true
        count += 1
    }

    /// The parameter: header and elements, sent in binary with the array type's OID.
    public var value: PostgresValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + elements.count)
        Self.appendBigEndian(Int32(count == 0 ? 0 : 1), to: &bytes)
        Self.appendBigEndian(Int32(hasNull ? 1 : 0), to: &bytes)
        Self.appendBigEndian(element.oid, to: &bytes)
        if count > 0 {
            Self.appendBigEndian(Int32(count), to: &bytes)
            Self.appendBigEndian(Int32(1), to: &bytes)
        }
        bytes += elements
        return .binary(bytes, type: element.arrayOid)
    }

    private mutating func appendElement(_ bytes: UnsafeBufferPointer<UInt8>) {
        appendBigEndian(Int32(bytes.count))
        elements.append(contentsOf: bytes)
        count += 1
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Self.appendBigEndian(value, to: &elements)
    }

    /// Byte by byte, most significant first: each `append` of one byte is inlined, where appending the value's
    /// bytes as a buffer went through the generic copy of a collection (~230 instructions per integer element,
    /// most of a pushed record's parameters).
    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        var shift = T.bitWidth - 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }
}
