import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line per event, to standard error by default. Never given a token.
public struct ServerLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Logs with `sink` (tests capture lines; the daemon writes to standard error).
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    /// Writes `expensed: <ISO-8601 time> <message>` lines to standard error, one `write` per line, or one per
    /// ``coalescingWrites(_:)`` for the lines logged inside it (``LogLineBuffer``).
    public static let standardError = ServerLog { message in
        LogLineBuffer.forThisThread.append(message, secondsSince1970: LogTimestamp.nowSecondsSince1970())
    }

    /// Discards everything.
    public static let none = ServerLog { _ in }

    public func callAsFunction(_ message: String) { sink(message) }

    /// Runs `body`; the lines this thread logs to ``standardError`` meanwhile are written in one `write` when it
    /// returns, in the order logged (nested calls write when the outermost returns). Other sinks are unaffected.
    static func coalescingWrites(_ body: () throws -> Void) rethrows {
        try LogLineBuffer.forThisThread.coalescingWrites(body)
    }
}
