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
    /// The address to give the client (`127.0.0.1:PORT`).
    let address: String
    private let listener: Int32
    private let upstreamPort: UInt16
    private let forward: @Sendable ([UInt8]) -> [UInt8]

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), passing each request line
    /// (its `\n` included) through `forward`.
    init(upstream: String, forward: @escaping @Sendable ([UInt8]) -> [UInt8]) throws {
        upstreamPort = try #require(upstream.split(separator: ":").last.flatMap { UInt16($0) })
        self.forward = forward
        let (fd, port) = try LoopbackListener.open()
        listener = fd
        address = "127.0.0.1:\(port)"
        Thread { [self] in acceptLoop() }.start()
    }

    /// Stops accepting (connections already relayed end with their client).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Whether `marker` occurs in `line`.
    static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool { range(of: marker, in: line) != nil }

    /// Where `marker` first occurs in `line`.
    static func range(of marker: [UInt8], in line: [UInt8]) -> Range<Int>? {
        guard line.count >= marker.count else { return nil }
        return (0...(line.count - marker.count)).lazy
            .first { start in line[start..<(start + marker.count)].elementsEqual(marker) }
            .map { $0..<($0 + marker.count) }
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

    /// Client to daemon, line by line, through `forward`.
    private func relayRequests(from client: Int32, to server: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        relaying: while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[...newline])
                pending.removeSubrange(...newline)
                guard Self.writeAll(server, forward(line)) else { break relaying }
            }
        }
        shutdown(server, Int32(SHUT_WR))
        close(client)
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
}
