import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line per event, to standard error by default. Never given a token.
public struct ServerLog: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Logs with `sink` (tests capture lines; the daemon writes to standard error).
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    /// Writes `expensed: <ISO-8601 time> <message>` lines to standard error, one `write` per line.
    public static let standardError = ServerLog { message in
        let line = "expensed: \(LogTimestamp.now()) \(message)\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// Discards everything.
    public static let none = ServerLog { _ in }

    public func callAsFunction(_ message: String) { sink(message) }
}
