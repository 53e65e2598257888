import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why the local store could not do what was asked.
package enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cache file cannot be opened or read for another reason than damage or permissions, such as a
    /// format newer than this program (exit 74).
    case unreadable(path: String, reason: String)
    /// The cache file fails its integrity check: it is damaged or not an expense cache (exit 74, code
    /// `unreadable_cache` as for ``unreadable(path:reason:)``); only then is moving it aside advised.
    case damaged(path: String, reason: String)
    /// The system refused access to the cache, its directory or its lock file (exit 77): `needed` says what the
    /// command needs, such as "to read and write it"; `reason` is the system's word for the refusal.
    case permissionDenied(path: String, needed: String, reason: String)
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
        case .unreadable, .damaged: "unreadable_cache"
        case .permissionDenied: "permission_denied"
        case .writeFailed: "write_failed"
        case .unknownId, .noConflict: "unknown_id"
        case .ambiguousId: "ambiguous_id"
        case .idPrefixTooShort: "id_prefix_too_short"
        }
    }

    package var message: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the cache \(path): \(reason)"
        case .damaged(let path, let reason): "cannot read the cache \(path): it is damaged or is not an expense cache (\(reason))"
        case .permissionDenied(let path, let needed, let reason):
            "cannot open \(path): \(reason); this command needs \(needed)"
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

extension StoreError {
    /// The error for a system call on `path` that failed with `code` (`errno`): a refusal of access becomes
    /// ``permissionDenied(path:needed:reason:)``, anything else `otherwise` with the errno's meaning.
    static func failure(_ code: Int32, path: String, needed: String,
                        otherwise: (_ path: String, _ reason: String) -> StoreError) -> StoreError {
        let reason = String(cString: strerror(code))
        if code == EACCES || code == EPERM || code == EROFS {
            return .permissionDenied(path: path, needed: needed, reason: reason.lowercased())
        }
        return otherwise(path, reason)
    }
}
