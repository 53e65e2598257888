import Foundation
import Synchronization

/// A relay (``LineRelay``) between an `expense` process and a real `expensed` that makes the daemon look like an
/// older one knowing fewer record kinds: each `hello` request's `kinds` member is replaced by `served` on its way,
/// so the daemon really serves only those (it serves what was asked and it knows, Protocol.md §10.1) and says so
/// in its answer. Every other line goes through unchanged, both ways.
final class KindsNarrowingProxy: Sendable {
    /// The address to give the client (`127.0.0.1:PORT`).
    var address: String { relay.address }
    private let relay: LineRelay
    /// How many `hello` lines had their kinds replaced (a test checks the relay was really in the way).
    private let narrowed = Count()

    private final class Count: Sendable {
        let value = Mutex(0)
    }

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), asking the daemon only for
    /// `served` in every `hello`.
    init(upstream: String, served: [String]) throws {
        let replacement = Array(#""kinds":[\#(served.map { "\"\($0)\"" }.joined(separator: ","))]"#.utf8)
        let narrowed = narrowed
        relay = try LineRelay(upstream: upstream) { line in
            guard let narrowedLine = Self.narrowingKinds(of: line, to: replacement) else { return line }
            narrowed.value.withLock { $0 += 1 }
            return narrowedLine
        }
    }

    /// The number of `hello` requests whose kinds were replaced so far.
    var narrowedHellos: Int { narrowed.value.withLock { $0 } }

    /// Stops accepting (connections already relayed end with their client).
    func stop() { relay.stop() }

    /// `line` with its `"kinds":[…]` member replaced, when it is a `hello` request that has one; else `nil`.
    private static func narrowingKinds(of line: [UInt8], to replacement: [UInt8]) -> [UInt8]? {
        guard LineRelay.contains(line, Array(#""method":"hello""#.utf8)),
              let start = LineRelay.range(of: Array(#""kinds":["#.utf8), in: line),
              let end = line[start.upperBound...].firstIndex(of: UInt8(ascii: "]")) else { return nil }
        return Array(line[..<start.lowerBound]) + replacement + Array(line[(end + 1)...])
    }
}
