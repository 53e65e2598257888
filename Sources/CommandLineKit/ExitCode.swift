/// Process exit codes for command-line tools, after BSD's `sysexits.h` where one fits. Each tool documents
/// what the codes mean for its own commands (`expense` in its help footer).
///
/// Scripts match on these numbers, so a code never changes meaning once shipped.
public enum ExitCode: Int32, Sendable, Hashable, CaseIterable {
    /// Everything worked.
    case success = 0
    /// The command failed for a reason that is not one of the more specific codes (a name that matches nothing, say).
    case failure = 1
    /// The command did its work, but left something for a person to decide.
    case conflictsRemain = 3
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input data was wrong: a validation error (EX_DATAERR).
    case dataError = 65
    /// A service the tool needs could not be reached (EX_UNAVAILABLE).
    case unavailable = 69
    /// A file could not be read or written (EX_IOERR).
    case ioError = 74
    /// A resource is busy for now and the same command may work later, such as a file another process holds
    /// locked (EX_TEMPFAIL).
    case temporaryFailure = 75
    /// The other side of a protocol answered something that cannot be used, such as an error for a request
    /// this side had to send (EX_PROTOCOL).
    case protocolError = 76
    /// Permission was refused, such as a credential the other side does not accept (EX_NOPERM).
    case permissionDenied = 77
}
