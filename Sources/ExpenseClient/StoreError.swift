/// Why the local store could not do what was asked.
package enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cache file cannot be opened or read, or is damaged (exit 74).
    case unreadable(path: String, reason: String)
    /// The cache file cannot be written (exit 74).
    case writeFailed(path: String, reason: String)
    /// No expense has an id starting with this prefix (exit 1).
    case unknownId(String)
    /// Several expenses have ids starting with this prefix (exit 1).
    case ambiguousId(String, matches: [String])
    /// No open conflict has an id starting with this prefix (`expense resolve`; exit 1, code `unknown_id`).
    case noConflict(String)
    /// An id prefix shorter than ``LocalLedger/minimumPrefixLength`` characters (exit 1).
    case idPrefixTooShort(String)

    /// A stable snake_case code.
    package var code: String {
        switch self {
        case .unreadable: "unreadable_cache"
        case .writeFailed: "write_failed"
        case .unknownId, .noConflict: "unknown_id"
        case .ambiguousId: "ambiguous_id"
        case .idPrefixTooShort: "id_prefix_too_short"
        }
    }

    package var message: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the cache \(path): \(reason)"
        case .writeFailed(let path, let reason): "cannot write the cache \(path): \(reason)"
        case .unknownId(let prefix): "no expense has an id starting with '\(prefix)'"
        case .noConflict(let prefix): "no open conflict has an id starting with '\(prefix)'; `expense conflicts` lists them"
        case .ambiguousId(let prefix, let matches):
            "'\(prefix)' matches several expenses (\(matches.joined(separator: ", "))); give more characters"
        case .idPrefixTooShort(let prefix):
            "'\(prefix)' is too short; give at least \(LocalLedger.minimumPrefixLength) characters of the id"
        }
    }

    package var description: String { "\(code): \(message)" }
}
