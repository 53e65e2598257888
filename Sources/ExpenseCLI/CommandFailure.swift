import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

/// A command that failed: the exit code and the lines for standard error.
struct CommandFailure: Error {
    var exitCode: ExitCode
    var lines: [String]

    init(_ exitCode: ExitCode, _ lines: String...) {
        self.exitCode = exitCode
        self.lines = lines
    }

    init(_ exitCode: ExitCode, lines: [String]) {
        self.exitCode = exitCode
        self.lines = lines
    }

    /// The exit code and message of any error a command can meet.
    static func from(_ error: any Error) -> (ExitCode, [String]) {
        switch error {
        case let failure as CommandFailure:
            return (failure.exitCode, failure.lines)
        case let error as ValidationError:
            if error == .missingField(.paidBy) {
                return (.dataError, ["Error: \(error.code): \(error.message)",
                                     "Give --paid-by NAME, or say who you are on this machine with `expense config set me NAME` "
                                     + "(the payer of what you add)."])
            }
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as StoreError:
            switch error {
            case .damaged(let path, _):
                // Only a file that fails its integrity check is worth moving aside, and only after saving what
                // can still be read.
                return (.ioError, ["Error: \(error.code): \(error.message)",
                                   "Nothing was changed. Try to save what can still be read with `expense export --output saved.csv`, "
                                   + "then move \(path) aside and run `expense sync` to fetch the synced expenses again "
                                   + "(and `expense import saved.csv` for changes that were not synced), or restore it from a backup."])
            case .permissionDenied(let path, _, _):
                return (.permissionDenied, ["Error: \(error.code): \(error.message)",
                                            "Nothing was changed. Check the owner and mode of \(path) and its directory "
                                            + "(`ls -la`): they should belong to you, the cache mode 0600, the directory 0700."])
            case .unreadable:
                return (.ioError, ["Error: \(error.code): \(error.message)", "Nothing was changed."])
            case .writeFailed: return (.ioError, ["Error: \(error.code): \(error.message)"])
            case .unknownId, .noConflict, .ambiguousId, .idPrefixTooShort: return (.failure, ["Error: \(error.code): \(error.message)"])
            }
        case let error as RecordUndoError:
            return (.failure, ["Error: \(error.code): \(error.message)"])
        case let error as SyncError:
            let code: ExitCode
            switch error {
            case .notConfigured, .otherLedger: code = .usage
            case .unreachable, .throttled, .unanswered: code = .unavailable
            case .unauthorized, .tlsRejected: code = .permissionDenied
            case .protocolError: code = .protocolError
            case .historyReplaced: code = .failure
            case .storageFull: code = .temporaryFailure
            }
            var lines = ["Error: \(error.code): \(error.message)"]
            switch error {
            case .unreachable, .unanswered:
                lines.append("Your changes are kept and will be sent by the next `expense sync`. Check that expensed "
                             + "runs and that `expense remote show` names its address.")
            case .protocolError:
                lines.append("Your changes are kept. `expense status` shows this failure until a sync succeeds; "
                             + "`EXPENSE_VERBOSE=1 expense sync` tells each step.")
            case .unauthorized:
                lines.append("Check the ledger name and token: `expense remote set HOST:PORT --ledger NAME "
                             + "--token-file FILE` (the daemon's DIR/NAME.token), or EXPENSE_LEDGER and EXPENSE_TOKEN.")
            case .storageFull:
                lines.append("Your changes are kept and will be sent by the next `expense sync` once the server's disk "
                             + "has space again; its administrator should free space in its data directory (the daemon "
                             + "needs no restart).")
            case .throttled:
                lines.append("Your changes are kept and will be sent by the next `expense sync`. A client at this "
                             + "address kept failing to log in to this ledger; fix its remote settings if it is yours.")
            default: break
            }
            return (code, lines)
        case let error as ReadOnlyLedgerError:
            return (.permissionDenied, ["Error: \(error.code): \(error.message)"])
        case let error as LedgerLimitError:
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as LedgerDataError:
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as RateError:
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as ImportRuleError:
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as StatisticsError:
            return (.dataError, ["Error: \(error.code): \(error)"])
        case let error as LedgerDataCacheError:
            return (.failure, ["Error: \(error.code): \(error)"])
        case let error as DiscardError:
            return (.failure, ["Error: \(error.code): \(error.message)"])
        case let error as SyncLockError:
            return (.temporaryFailure, ["Error: \(error.code): \(error.message)"])
        case let error as ImportError:
            switch error {
            case .invalidRows(let problems, let total):
                var head = "Error: nothing imported: \(total) bad row\(total == 1 ? "" : "s")"
                if total > problems.count { head += " (the first \(problems.count) shown)" }
                return (.dataError, [head] + problems.map { "  \($0)" })
            default:
                return (.dataError, ["Error: nothing imported: \(error)"])
            }
        default:
            if let described = fileProblem(error) { return described }
            return (.failure, ["Error: \(error)"])
        }
    }

    /// A Foundation file error said for people: the path and the system's reason, never the raw
    /// `NSCocoaErrorDomain Code=… UserInfo=…` dump; exit 77 for a refused permission, else 74.
    private static func fileProblem(_ error: any Error) -> (ExitCode, [String])? {
        let error = error as NSError
        guard error.domain == NSCocoaErrorDomain else { return nil }
        let path = error.userInfo[NSFilePathErrorKey] as? String ?? (error.userInfo[NSURLErrorKey] as? URL)?.path ?? "a file"
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let posix = underlying.flatMap { $0.domain == NSPOSIXErrorDomain ? Int32(truncatingIfNeeded: $0.code) : nil }
        let denied = posix == EACCES || posix == EPERM || posix == EROFS
            || [CocoaError.fileReadNoPermission.rawValue, CocoaError.fileWriteNoPermission.rawValue].contains(error.code)
        let reason = posix.map { String(cString: strerror($0)) } ?? (denied ? "permission denied" : "the operation failed")
        return denied
            ? (.permissionDenied, ["Error: permission_denied: \(path): \(reason)"])
            : (.ioError, ["Error: io_error: \(path): \(reason)"])
    }
}
