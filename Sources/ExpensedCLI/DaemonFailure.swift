import CommandLineKit
import ExpenseServer
import ExpenseTransport
#if canImport(Glibc)
import Glibc
#endif

/// The exit code and message for an error an `expensed` command meets (usage errors excepted).
enum DaemonFailure {
    /// The exit code for `error`, after `sysexits.h` (see ``ExpensedCommands/footer``).
    static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case let error as LedgerError:
            switch error {
            case .dataDirectory(let path, _):
                return isPermissionDenied(path) ? .permissionDenied : .ioError
            case .damagedDatabase, .storageFull, .storageFailed, .ledgerFailed:
                return .ioError
            case .invalidLedgerName:
                return .usage
            case .dataDirectoryInUse:
                return .temporaryFailure
            case .invalidBackup:
                return .dataError
            case .storageUnavailable:
                return .unavailable
            default:
                return .failure
            }
        case let error as TransportError:
            switch error {
            case .systemCall(_, let code) where code == EACCES || code == EPERM: return .permissionDenied
            case .systemCall, .resolveFailed: return .unavailable
            default: return .failure
            }
        default:
            return .failure
        }
    }

    /// Whether `path`, or the nearest of its ancestors that exists, refuses this user access.
    private static func isPermissionDenied(_ path: String) -> Bool {
        var candidate = path.isEmpty ? "." : path
        while access(candidate, F_OK) != 0, candidate != "/", candidate != "." {
            let parent = candidate.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            candidate = parent.isEmpty ? (candidate.hasPrefix("/") ? "/" : ".") : parent
        }
        // A file where a directory should be is not a permission problem (and would fail X_OK): an I/O error.
        var info = stat()
        if stat(candidate, &info) == 0, info.st_mode & S_IFMT != S_IFDIR { return false }
        return access(candidate, R_OK | W_OK | X_OK) != 0 && errno == EACCES
    }
}
