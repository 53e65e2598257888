import CommandLineKit
import ExpenseClient
import ExpenseCore

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
            return (.dataError, ["Error: \(error.code): \(error.message)"])
        case let error as StoreError:
            switch error {
            case .unreadable:
                return (.ioError, ["Error: \(error.code): \(error.message)",
                                   "Nothing was changed. Restore the file from a backup, or move it aside and run "
                                   + "`expense sync` to fetch the synced expenses again (unsynced changes in it are lost)."])
            case .writeFailed: return (.ioError, ["Error: \(error.code): \(error.message)"])
            case .unknownId, .noConflict, .ambiguousId, .idPrefixTooShort: return (.failure, ["Error: \(error.code): \(error.message)"])
            }
        case let error as SyncError:
            let code: ExitCode
            switch error {
            case .notConfigured, .otherLedger: code = .usage
            case .unreachable, .throttled: code = .unavailable
            case .unauthorized: code = .permissionDenied
            case .protocolError: code = .failure
            }
            var lines = ["Error: \(error.code): \(error.message)"]
            switch error {
            case .unreachable:
                lines.append("Your changes are kept and will be sent by the next `expense sync`. Check that expensed "
                             + "runs and that `expense remote show` names its address.")
            case .unauthorized:
                lines.append("Check the ledger name and token: `expense remote set HOST:PORT --ledger NAME "
                             + "--token-file FILE` (the daemon's DIR/NAME.token), or EXPENSE_LEDGER and EXPENSE_TOKEN.")
            case .throttled:
                lines.append("Your changes are kept and will be sent by the next `expense sync`. A client at this "
                             + "address kept failing to log in to this ledger; fix its remote settings if it is yours.")
            default: break
            }
            return (code, lines)
        case let error as ImportError:
            switch error {
            case .invalidRows(let problems):
                let head = "Error: nothing imported: \(problems.count) bad row\(problems.count == 1 ? "" : "s")"
                return (.dataError, [head] + problems.map { "  \($0)" })
            default:
                return (.dataError, ["Error: nothing imported: \(error)"])
            }
        default:
            return (.failure, ["Error: \(error)"])
        }
    }
}
