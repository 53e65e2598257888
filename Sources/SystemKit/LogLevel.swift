/// How much a log line matters, least first: the daemon's log (`ServerLog`, `serve --log-level`) and the lines
/// its transport hands it.
public enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    /// Every request's outcome: one line per push.
    case debug
    /// What an operator follows: hellos, ledgers opened, created and closed, connections closed for their
    /// protocol or a timeout, start and stop.
    case info
    /// Something refused or degraded that the daemon carries on from: a failed hello, connections refused as
    /// busy or for want of descriptors, a WAL checkpoint or the shared login throttle failing.
    case warning
    /// What stops a request or the daemon: an internal error, `accept` or `epoll_wait` failing, a socket or
    /// directory that cannot be opened.
    case error

    /// The level's name, as `--log-level` takes it.
    public var name: String { String(describing: self) }

    /// The level named `name`, or `nil`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
