/// Process exit codes for command-line tools, after BSD's `sysexits.h` where one fits. Each tool documents
/// what the codes mean for its own commands (`expense` in its help footer).
///
/// Open, as swift-argument-parser's `ExitCode`: the codes here mean the same for any tool; a program adds its
/// own (`expense`'s `conflictsRemain`) in an extension, so this module knows nothing about expenses.
/// Scripts match on these numbers, so a code never changes meaning once shipped.
public struct ExitCode: RawRepresentable, Sendable, Hashable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Everything worked.
    public static let success = ExitCode(rawValue: 0)
    /// The command failed for a reason that is not one of the more specific codes (a name that matches nothing, say).
    public static let failure = ExitCode(rawValue: 1)
    /// The command line was wrong (EX_USAGE).
    public static let usage = ExitCode(rawValue: 64)
    /// The input data was wrong: a validation error (EX_DATAERR).
    public static let dataError = ExitCode(rawValue: 65)
    /// A service the tool needs could not be reached (EX_UNAVAILABLE).
    public static let unavailable = ExitCode(rawValue: 69)
    /// A file could not be read or written (EX_IOERR).
    public static let ioError = ExitCode(rawValue: 74)
    /// A resource is busy for now and the same command may work later, such as a file another process holds
    /// locked (EX_TEMPFAIL).
    public static let temporaryFailure = ExitCode(rawValue: 75)
    /// The other side of a protocol answered something that cannot be used, such as an error for a request
    /// this side had to send (EX_PROTOCOL).
    public static let protocolError = ExitCode(rawValue: 76)
    /// Permission was refused, such as a credential the other side does not accept (EX_NOPERM).
    public static let permissionDenied = ExitCode(rawValue: 77)

    /// The codes above, in order (a tool's own codes are not among them).
    public static let generic: [ExitCode] = [
        .success, .failure, .usage, .dataError, .unavailable, .ioError, .temporaryFailure, .protocolError,
        .permissionDenied,
    ]
}
