import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on a free loopback port in front of a real `expensed`: each line from the client goes through
/// `forward` on its way to the daemon (which may change it, or block until the test lets it go); the daemon's
/// bytes go back unchanged. The relays of the end-to-end tests (``StallingProxy``, ``KindsNarrowingProxy``) are
/// this with their own `forward`.
final class LineRelay: Sendable {
    private let listener: AcceptingListener

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), passing each request line
    /// (its `\n` included) through `forward`.
    init(upstream: String, forward: @escaping @Sendable ([UInt8]) -> [UInt8]) throws {
        let upstreamPort = try #require(upstream.split(separator: ":").last.flatMap { UInt16($0) })
        listener = try AcceptingListener { client in
            guard let server = LoopbackListener.connect(port: upstreamPort) else {
                close(client)
                return
            }
            // Each direction ends by itself (a client that stops sending still reads its answers); the pair's
            // descriptors are closed once both have.
            let pair = RelayedConnection(client: client, upstream: server)
            Thread { Self.relayRequests(pair, forward: forward) }.start()
            Thread { Self.pump(from: server, to: client, pair: pair) }.start()
        }
    }

    /// The address to give the client (`127.0.0.1:PORT`).
    var address: String { listener.address }

    /// Stops accepting (connections already relayed end with their client).
    func stop() { listener.stop() }

    /// Whether `marker` occurs in `line`.
    static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool { range(of: marker, in: line) != nil }

    /// Where `marker` first occurs in `line`.
    static func range(of marker: [UInt8], in line: [UInt8]) -> Range<Int>? {
        guard line.count >= marker.count else { return nil }
        return (0...(line.count - marker.count)).lazy
            .first { start in line[start..<(start + marker.count)].elementsEqual(marker) }
            .map { $0..<($0 + marker.count) }
    }

    /// Client to daemon, line by line, through `forward`.
    private static func relayRequests(_ pair: RelayedConnection, forward: ([UInt8]) -> [UInt8]) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        relaying: while true {
            let count = buffer.withUnsafeMutableBytes { read(pair.client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[...newline])
                pending.removeSubrange(...newline)
                guard writeAll(pair.upstream, forward(line)) else { break relaying }
            }
        }
        pair.endSending(to: pair.upstream)
    }

    private static func pump(from source: Int32, to destination: Int32, pair: RelayedConnection) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, writeAll(destination, Array(buffer[0..<count])) else { break }
        }
        pair.endSending(to: destination)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
