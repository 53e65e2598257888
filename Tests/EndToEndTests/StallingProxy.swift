import Foundation
import TestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay between an `expense` process and a real `expensed` that holds the first request line of one
/// method (say `pull`) until the test releases it: a sync that stays in progress exactly as long as the test
/// needs, with no sleeps. Every other line goes through at once, both ways.
final class StallingProxy: Sendable {
    /// The address to give the client (`127.0.0.1:PORT`).
    let address: String
    private let listener: Int32
    private let upstreamPort: UInt16
    private let method: String
    /// Signalled once the held line arrived (the sync is now waiting for the daemon).
    private let reached = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let armed = Mutex(true)

    /// Listens on a free loopback port and relays to `upstream` (`127.0.0.1:PORT`), holding the first line whose
    /// method is `method`.
    init(upstream: String, holding method: String) throws {
        upstreamPort = try #require(upstream.split(separator: ":").last.flatMap { UInt16($0) })
        self.method = method
        let (fd, port) = try LoopbackListener.open()
        listener = fd
        self.address = "127.0.0.1:\(port)"
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting (connections already relayed end with their client).
    func stop() {
        release()
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Waits until the held line arrived; `false` after `timeout` seconds.
    func waitUntilHeld(timeout: Double = 60) -> Bool { // not money: seconds
        reached.wait(timeout: .now() + timeout) == .success
    }

    /// Lets the held line (and everything after it) through.
    func release() { released.signal() }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
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
            var address = Self.loopback(port: upstreamPort)
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

    /// Client to daemon, line by line, holding the chosen method's first line.
    private func relayRequests(from client: Int32, to server: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let marker = Array(#""method":"\#(method)""#.utf8)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[...newline])
                pending.removeSubrange(...newline)
                if Self.contains(line, marker), armed.withLock({ let was = $0; $0 = false; return was }) {
                    reached.signal()
                    released.wait()
                }
                guard Self.writeAll(server, line) else { break }
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

    private static func contains(_ line: [UInt8], _ marker: [UInt8]) -> Bool {
        guard line.count >= marker.count else { return false }
        return (0...(line.count - marker.count)).contains { start in line[start..<(start + marker.count)].elementsEqual(marker) }
    }
}
