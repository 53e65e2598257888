/// The process exit codes of the project's command-line tools, after BSD's `sysexits.h` where one fits.
///
/// Scripts match on these numbers, so a code never changes meaning once shipped.
public enum ExitCode: Int32, Sendable, Hashable, CaseIterable {
    /// Everything worked.
    case success = 0
    /// The command failed for a reason that is not one of the more specific codes (an unknown id, say).
    case failure = 1
    /// `expense sync` finished but conflicts remain for a person to resolve.
    case conflictsRemain = 3
    /// The command line was wrong (EX_USAGE).
    case usage = 64
    /// The input data was wrong: a validation error (EX_DATAERR).
    case dataError = 65
    /// A service (the daemon) could not be reached (EX_UNAVAILABLE).
    case unavailable = 69
    /// A file could not be read or written, such as an unreadable cache (EX_IOERR).
    case ioError = 74
    /// A resource is busy for now and the same command may work later, such as a data directory another
    /// daemon holds (EX_TEMPFAIL).
    case temporaryFailure = 75
    /// The other side of a protocol answered something that cannot be used, such as an error for a request
    /// this side had to send (EX_PROTOCOL).
    case protocolError = 76
    /// Permission was refused, such as an unauthorized token (EX_NOPERM).
    case permissionDenied = 77

    /// One line per code for help texts and the README.
    public static var documentation: String {
        """
          0  success
          1  failure (for example an unknown or ambiguous id)
          3  synced, but conflicts remain
         64  usage error (a wrong command line)
         65  invalid data (a validation error; the message names the field)
         69  server unavailable
         74  I/O error (for example an unreadable cache file)
         76  protocol failure (the daemon refused or answered a request in a way the client cannot use)
         77  permission denied
        """
    }
}
