import Foundation
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay between an `expense` process and a real `expensed` that makes the daemon look like an older one
/// knowing fewer record kinds: each `hello` request's `kinds` member is replaced by `served` on its way, so the
/// daemon really serves only those (it serves what was asked and it knows, Protocol.md §10.1) and says so in its
/// answer. Every other line goes through unchanged, both ways.
final class KindsNarrowingProxy: Sendable {
    /// The address to give the client (`127.0.0.1:PORT`).
    let address: String
    private let listener: Int32
    private let upstreamPort: UInt16
    /// The `"kinds":[…]` text put in place of the client's.
    private let replacement: [UInt8]
    /// How many `hello` lines had their kinds replaced (a test checks the relay was really in the way).
    private let narrowed = Mutex(0)

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), asking the daemon only for
    /// `served` in every `hello`.
    init(upstream: String, served: [String]) throws {
        upstreamPort = try #require(upstream.split(separator: ":").last.flatMap { UInt16($0) })
        replacement = Array(#""kinds":[\#(served.map { "\"\($0)\"" }.joined(separator: ","))]"#.utf8)
        let (fd, port) = try LoopbackListener.open()
        listener = fd
        address = "127.0.0.1:\(port)"
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The number of `hello` requests whose kinds were replaced so far.
    var narrowedHellos: Int { narrowed.withLock { $0 } }

    /// Stops accepting (connections already relayed end with their client).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = upstreamPort.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            Thread { [self] in relayRequests(from: client, to: server) }.start()
            Thread { Self.pump(from: server, to: client) }.start()
        }
    }

    /// Client to daemon, line by line, narrowing the kinds of each `hello`.
    private func relayRequests(from client: Int32, to server: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[...newline])
                pending.removeSubrange(...newline)
                if let narrowedLine = narrowingKinds(of: line) {
                    line = narrowedLine
                    narrowed.withLock { $0 += 1 }
                }
                guard Self.writeAll(server, line) else { break }
            }
        }
        shutdown(server, Int32(SHUT_WR))
        close(client)
    }

    /// `line` with its `"kinds":[…]` member replaced, when it is a `hello` request that has one; else `nil`.
    private func narrowingKinds(of line: [UInt8]) -> [UInt8]? {
        guard Self.range(of: Array(#""method":"hello""#.utf8), in: line) != nil,
              let start = Self.range(of: Array(#""kinds":["#.utf8), in: line),
              let end = line[start.upperBound...].firstIndex(of: UInt8(ascii: "]")) else { return nil }
        return Array(line[..<start.lowerBound]) + replacement + Array(line[(end + 1)...])
    }

    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, writeAll(destination, Array(buffer[0..<count])) else { break }
        }
        shutdown(destination, Int32(SHUT_WR))
        close(source)
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

    private static func range(of marker: [UInt8], in line: [UInt8]) -> Range<Int>? {
        guard line.count >= marker.count else { return nil }
        return (0...(line.count - marker.count)).lazy
            .first { start in line[start..<(start + marker.count)].elementsEqual(marker) }
            .map { $0..<($0 + marker.count) }
    }
}
