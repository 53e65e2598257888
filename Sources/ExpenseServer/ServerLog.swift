import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line per event, to standard error by default, each at a ``Level``: a line below the log's level is
/// never made (its message is an autoclosure, as swift-log's are), so a hot path logs in plain interpolation and
/// pays nothing when its level is off. Never given a token.
public struct ServerLog: Sendable {
    /// How much a line matters, least first (`serve --log-level`).
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        /// Every request's outcome: one line per push.
        case debug
        /// What an operator follows: connections' hellos, ledgers opened, created and closed, start and stop.
        case info
        /// Something refused or degraded that the daemon carries on from: a failed hello, a connection closed
        /// for its protocol, a WAL checkpoint that failed.
        case warning
        /// What stops a request or the daemon: an internal error, a socket that cannot be bound.
        case error

        /// The level's name, as `--log-level` takes it.
        public var name: String { String(describing: self) }

        /// The level named `name`, or `nil`.
        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// The least level logged.
    public let level: Level
    private let sink: @Sendable (String) -> Void

    /// Logs the lines of `level` and above with `sink` (tests capture lines; the daemon writes to standard error).
    public init(level: Level = .info, _ sink: @escaping @Sendable (String) -> Void) {
        self.level = level
        self.sink = sink
    }

    /// Writes `expensed: <ISO-8601 time> <message>` lines of `level` and above to standard error, one `write` per
    /// line, or one per ``coalescingWrites(_:)`` for the lines logged inside it (``LogLineBuffer``).
    public static func standardError(level: Level) -> ServerLog {
        ServerLog(level: level) { message in
            LogLineBuffer.forThisThread.append(message, secondsSince1970: LogTimestamp.nowSecondsSince1970())
        }
    }

    /// ``standardError(level:)`` at `info`.
    public static let standardError = standardError(level: .info)

    /// Discards everything.
    public static let none = ServerLog(level: .error) { _ in }

    /// Whether a line of `level` is logged.
    @inline(__always)
    public func logs(_ level: Level) -> Bool { level >= self.level }

    /// Logs `message` at `level`; it is made only when that level is logged.
    @inline(__always)
    public func callAsFunction(_ level: Level, _ message: @autoclosure () -> String) {
        if level >= self.level { sink(message()) }
    }

    /// Logs `message` at `info`.
    @inline(__always)
    public func callAsFunction(_ message: @autoclosure () -> String) { self(.info, message()) }

    /// This log's lines, at `level` and above.
    public func at(_ level: Level) -> ServerLog { ServerLog(level: level, sink) }

    /// Runs `body`; the lines this thread logs to ``standardError`` meanwhile are written in one `write` when it
    /// returns, in the order logged (nested calls write when the outermost returns). Other sinks are unaffected.
    static func coalescingWrites(_ body: () throws -> Void) rethrows {
        try LogLineBuffer.forThisThread.coalescingWrites(body)
    }
}
