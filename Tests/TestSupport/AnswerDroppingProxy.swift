import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 (port 0) in front of a daemon that forwards every line both ways, except that, while armed, it
/// forwards a push to the daemon, waits for the daemon's answer and drops it: the connection closes as a
/// killed client, a sleeping laptop or a broken network would leave it (the daemon has applied the push).
public final class AnswerDroppingProxy: @unchecked Sendable {
    // @unchecked Sendable: `armed` and `dropped` are guarded by `lock`; the file descriptors are owned by the
    // threads that use them (the listener's by the accept thread until `stop()` shuts it down).
    private let lock = NSLock()
    private var armed = false
    private var dropped = 0
    private let listener: Int32
    /// The port the proxy listens on.
    public let port: UInt16
    private let upstreamPort: UInt16

    /// Listens, and forwards each connection to 127.0.0.1:`upstreamPort`.
    public init(forwardingTo upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        (listener, port) = try LoopbackListener.open()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Drops the answer of the next push (once).
    public func dropNextPushAnswer() { lock.withLock { armed = true } }

    /// Push answers dropped so far.
    public var droppedCount: Int { lock.withLock { dropped } }

    /// `127.0.0.1:PORT`.
    public var address: String { "127.0.0.1:\(port)" }

    /// Stops accepting (connections already proxied go on until either side closes).
    public func stop() {
        // Only shut down: the accept thread closes the listener when accept fails, so its descriptor number
        // cannot be reused by another socket while that thread might still call accept on it.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            let upstream = Self.connect(port: upstreamPort)
            guard upstream >= 0 else { close(client); continue }
            // Both directions get a thread; whichever ends first shuts both sockets so the other one ends too.
            let pair = SocketPair(client: client, upstream: upstream)
            Thread { Self.copy(from: client, to: upstream, pair: pair) }.start()
            Thread { [self] in forwardAnswers(pair) }.start()
        }
    }

    /// Daemon → client, line by line; a push answer (a result with `results`) is dropped while armed.
    private func forwardAnswers(_ pair: SocketPair) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(pair.upstream, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[...newline])
                buffer.removeSubrange(...newline)
                let isPushAnswer = String(decoding: line, as: UTF8.self).contains(#""results":["#)
                let drop = isPushAnswer && lock.withLock {
                    guard armed else { return false }
                    armed = false
                    dropped += 1
                    return true
                }
                if drop || !Self.sendAll(pair.client, line) {
                    pair.shutDown()
                    return
                }
            }
        }
        pair.shutDown()
    }

    private static func copy(from source: Int32, to destination: Int32, pair: SocketPair) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0, sendAll(destination, Array(chunk[0..<count])) else { break }
        }
        pair.shutDown()
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func connect(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(fd); return -1 }
        return fd
    }
}

/// The proxy could not bind or listen.
public enum ProxyError: Error { case cannotListen }

/// The two sockets of one proxied connection, shut down once and closed when both threads are done with it.
private final class SocketPair: @unchecked Sendable {
    // @unchecked Sendable: `isShut` is guarded by `lock`; the descriptors are closed only in deinit, after both
    // threads released the pair.
    let client: Int32
    let upstream: Int32
    private let lock = NSLock()
    private var isShut = false

    init(client: Int32, upstream: Int32) {
        self.client = client
        self.upstream = upstream
    }

    func shutDown() {
        lock.withLock {
            guard !isShut else { return }
            isShut = true
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
        }
    }

    deinit {
        close(client)
        close(upstream)
    }
}
