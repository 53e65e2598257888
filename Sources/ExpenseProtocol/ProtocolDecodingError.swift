/// Why a message from the daemon (a response, a result, a notification) could not be read by a client.
/// Each case has a stable snake_case ``code``; `path` names the member, such as `result.changes[3].amount`.
public enum ProtocolDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line is not JSON.
    case invalidJSON(JSONParseError)
    /// A required member is absent.
    case missingMember(path: String)
    /// A member has the wrong JSON type or an impossible value.
    case invalidMember(path: String, detail: String)
    /// The line is JSON but not a JSON-RPC 2.0 response or notification.
    case notAMessage(String)

    /// The stable snake_case code.
    public var code: String {
        switch self {
        case .invalidJSON: "invalid_json"
        case .missingMember: "missing_member"
        case .invalidMember: "invalid_member"
        case .notAMessage: "not_a_message"
        }
    }

    public var description: String {
        switch self {
        case .invalidJSON(let error): "the daemon sent a line that is not JSON: \(error)"
        case .missingMember(let path): "the daemon's message has no \(path)"
        case .invalidMember(let path, let detail): "the daemon's \(path) is invalid: \(detail)"
        case .notAMessage(let detail): "the daemon sent something that is not a JSON-RPC message: \(detail)"
        }
    }
}

/// Reads members of an object received from the daemon, naming the full path in every error.
struct ResultReader {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(ProtocolDecodingError) {
        guard case .object(let members) = value else { throw .invalidMember(path: path, detail: "expected an object") }
        self.members = members
        self.path = path
    }

    func sub(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func value(_ key: String) throws(ProtocolDecodingError) -> JSONValue {
        guard let value = members[key] else { throw .missingMember(path: sub(key)) }
        return value
    }

    func string(_ key: String) throws(ProtocolDecodingError) -> String {
        guard let text = try value(key).stringValue else { throw .invalidMember(path: sub(key), detail: "expected a string") }
        return text
    }

    func optionalString(_ key: String) throws(ProtocolDecodingError) -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalidMember(path: sub(key), detail: "expected a string") }
        return text
    }

    func int64(_ key: String) throws(ProtocolDecodingError) -> Int64 {
        guard let number = try value(key).int64Value else { throw .invalidMember(path: sub(key), detail: "expected an integer") }
        return number
    }

    func bool(_ key: String) throws(ProtocolDecodingError) -> Bool {
        guard let flag = try value(key).boolValue else { throw .invalidMember(path: sub(key), detail: "expected true or false") }
        return flag
    }

    func array(_ key: String) throws(ProtocolDecodingError) -> [JSONValue] {
        guard let elements = try value(key).arrayValue else { throw .invalidMember(path: sub(key), detail: "expected an array") }
        return elements
    }
}
