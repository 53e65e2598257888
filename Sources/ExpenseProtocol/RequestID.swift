/// A JSON-RPC request id: a number (its exact text kept, so it is echoed byte for byte) or a string.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case number(JSONNumber)
    case string(String)

    /// An integer id, as clients of this project make them.
    public init(_ value: Int64) { self = .number(JSONNumber(value)) }

    /// The id read from a JSON value: a number or a string; anything else is not an id.
    public init?(json: JSONValue) {
        switch json {
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        default: return nil
        }
    }

    /// The id as a JSON value.
    public var json: JSONValue {
        switch self {
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        }
    }

    public var description: String {
        switch self {
        case .number(let number): number.text
        case .string(let text): "\"\(text)\""
        }
    }
}

extension JSONWriter {
    /// Writes a request id, or `null` when there is none.
    public mutating func requestID(_ id: RequestID?) {
        switch id {
        case .number(let number)?: self.number(number)
        case .string(let text)?: string(text)
        case nil: null()
        }
    }
}
