/// A process exit code for a command-line tool, after BSD's `sysexits.h` where one fits.
///
/// Open, as swift-argument-parser's `ExitCode` is: this module names the codes every tool shares, and each
/// program adds its own in an extension (`expense` adds `conflictsRemain`, 3) and documents what the codes
/// mean for its commands (`expense` in its help footer). Scripts match on these numbers, so a code never
/// changes meaning once shipped.
public struct ExitCode: RawRepresentable, Sendable, Hashable {
    /// The number the process exits with.
    public var rawValue: Int32

    /// The code `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The code `rawValue`, such as a program's own `ExitCode(3)`.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Everything worked.
    public static let success = ExitCode(0)
    /// The command failed for a reason that is not one of the more specific codes (a name that matches nothing, say).
    public static let failure = ExitCode(1)
    /// The command line was wrong (EX_USAGE).
    public static let usage = ExitCode(64)
    /// The input data was wrong: a validation error (EX_DATAERR).
    public static let dataError = ExitCode(65)
    /// A service the tool needs could not be reached (EX_UNAVAILABLE).
    public static let unavailable = ExitCode(69)
    /// A file could not be read or written (EX_IOERR).
    public static let ioError = ExitCode(74)
    /// A resource is busy for now and the same command may work later, such as a file another process holds
    /// locked (EX_TEMPFAIL).
    public static let temporaryFailure = ExitCode(75)
    /// The other side of a protocol answered something that cannot be used, such as an error for a request
    /// this side had to send (EX_PROTOCOL).
    public static let protocolError = ExitCode(76)
    /// Permission was refused, such as a credential the other side does not accept (EX_NOPERM).
    public static let permissionDenied = ExitCode(77)
}
