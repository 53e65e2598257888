import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 (port 0) in front of a daemon that forwards every line both ways, except that, while armed, it
/// forwards a push to the daemon, waits for the daemon's answer and drops it: the connection closes as a
/// killed client, a sleeping laptop or a broken network would leave it (the daemon has applied the push).
public final class AnswerDroppingProxy: Sendable {
    private let drops: Drops
    private let listener: AcceptingListener

    /// Whether the next push answer is dropped, and how many were.
    private final class Drops: Sendable {
        let state = Mutex<(armed: Bool, dropped: Int)>((false, 0))

        /// Whether `line`, an answer from the daemon, is dropped (disarming).
        func drops(_ line: [UInt8]) -> Bool {
            guard String(decoding: line, as: UTF8.self).contains(#""results":["#) else { return false }
            return state.withLock { state in
                guard state.armed else { return false }
                state = (false, state.dropped + 1)
                return true
            }
        }
    }

    /// Listens, and forwards each connection to 127.0.0.1:`upstreamPort`.
    public init(forwardingTo upstreamPort: UInt16) throws {
        let drops = Drops()
        self.drops = drops
        listener = try AcceptingListener { client in
            guard let upstream = LoopbackListener.connect(port: upstreamPort) else {
                close(client)
                return
            }
            // Both directions get a thread; whichever ends first shuts both sockets so the other one ends too.
            let pair = RelayedConnection(client: client, upstream: upstream)
            Thread { Self.copy(from: client, to: upstream, pair: pair) }.start()
            Thread { Self.forwardAnswers(pair, drops: drops) }.start()
        }
    }

    /// The port the proxy listens on.
    public var port: UInt16 { listener.port }

    /// `127.0.0.1:PORT`.
    public var address: String { listener.address }

    /// Drops the answer of the next push (once).
    public func dropNextPushAnswer() { drops.state.withLock { $0.armed = true } }

    /// Push answers dropped so far.
    public var droppedCount: Int { drops.state.withLock { $0.dropped } }

    /// Stops accepting (connections already proxied go on until either side closes).
    public func stop() { listener.stop() }

    /// Daemon → client, line by line; a push answer (a result with `results`) is dropped while armed.
    private static func forwardAnswers(_ pair: RelayedConnection, drops: Drops) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(pair.upstream, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[...newline])
                buffer.removeSubrange(...newline)
                if drops.drops(line) || !sendAll(pair.client, line) {
                    pair.shutDown()
                    return
                }
            }
        }
        pair.shutDown()
    }

    private static func copy(from source: Int32, to destination: Int32, pair: RelayedConnection) {
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
}

/// The proxy could not bind or listen.
public enum ProxyError: Error { case cannotListen }
