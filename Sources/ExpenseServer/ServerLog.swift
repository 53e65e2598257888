import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// One line per event, to standard error by default, each at a ``Level``: a line below the log's level is
/// never made (its message is an autoclosure, as swift-log's are), so a hot path logs in plain interpolation and
/// pays nothing when its level is off. Never given a token.
public struct ServerLog: Sendable {
    /// How much a line matters (``SystemKit/LogLevel``).
    public typealias Level = LogLevel

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

    /// Runs `body`; the lines this thread logs to ``standardError`` meanwhile are written in one `write` when it
    /// returns, in the order logged (nested calls write when the outermost returns). Other sinks are unaffected.
    static func coalescingWrites(_ body: () throws -> Void) rethrows {
        try LogLineBuffer.forThisThread.coalescingWrites(body)
    }
}
