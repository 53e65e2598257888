import CEpoll
import ExpenseTransport
import Glibc
import SystemKit

/// A client socket with `TCP_NODELAY`, plaintext or TLS (ExpenseTransport's ``TLSSession`` over memory BIOs).
///
/// Blocking while a scenario sets a connection up (connect, TLS handshake, `hello`) or drives it alone (idle, summary);
/// the load generator then takes its descriptor and session over (``detachForLoop()``) and drives it non-blocking.
/// Reading counts `\n` bytes, so the same code drives expensed (JSON-RPC lines) and Redis (`+PONG\r\n`).
final class TCPConnection {
    /// The socket; closed in `deinit` unless the loop took it over.
    let descriptor: Int32
    /// The TLS session, when the connection speaks TLS.
    private(set) var tls: TLSSession?
    /// Plaintext received after the last complete line by ``readLine()`` (nothing else is read ahead).
    private var pending: [UInt8] = []
    private var detached = false

    /// Seconds a read may wait for an answer before the round fails.
    static let receiveTimeoutSeconds = 60
    /// Bytes read per `recv`.
    static let chunkSize = 16 * 1024

    /// Connects to `host:port` (IPv4 dotted quad); with `tls`, runs the TLS handshake before returning.
    /// - Throws: ``BenchError/system(call:errno:)``, ``BenchError/other(_:)`` for a failed handshake.
    init(host: String, port: UInt16, tls context: TLSContext? = nil) throws(BenchError) {
        let socketDescriptor = try Self.openSocket(host: host, port: port, nonBlocking: false)
        var timeout = timeval(tv_sec: Self.receiveTimeoutSeconds, tv_usec: 0)
        // A server that stops answering makes the figure fail after this long instead of hanging the bench.
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = socketDescriptor
        if let context {
            do {
                tls = try TLSSession(context: context, serverName: host)
            } catch {
                close(socketDescriptor)
                throw .other("TLS: \(error)")
            }
            try handshake()
        }
    }

    deinit { if !detached { close(descriptor) } }

    /// A TCP socket connected (or, non-blocking, connecting) to `host:port`, with `TCP_NODELAY`.
    static func openSocket(host: String, port: UInt16, nonBlocking: Bool) throws(BenchError) -> Int32 {
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let socketDescriptor = socket(AF_INET, flags, 0)
        guard socketDescriptor >= 0 else { throw .lastSystemError("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(socketDescriptor)
            throw .other("not an IPv4 address: \(host)")
        }
        var one: Int32 = 1
        setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 || (nonBlocking && errno == EINPROGRESS) else {
            let error = BenchError.lastSystemError("connect \(host):\(port)")
            close(socketDescriptor)
            throw error
        }
        return socketDescriptor
    }

    /// Hands the socket and TLS session to the load generator: the socket becomes non-blocking and is no longer
    /// closed by this object.
    func detachForLoop() -> (descriptor: Int32, tls: TLSSession?) {
        detached = true
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return (descriptor, tls)
    }

    /// Writes every byte of `bytes` (encrypted first over TLS).
    func send(_ bytes: [UInt8]) throws(BenchError) {
        guard let tls else {
            try sendRaw(bytes)
            return
        }
        var offset = 0
        while offset < bytes.count {
            let consumed = bytes.withUnsafeBytes { tls.encrypt(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            if case .failed(let error) = tls.state { throw .other("TLS: \(error)") }
            guard consumed > 0 else { throw .other("TLS: the session took no plaintext") }
            offset += consumed
            try flushCiphertext()
        }
    }

    /// Reads until `lines` newline bytes have arrived; every plaintext byte read is appended to `response`
    /// (which is emptied first). Used with exactly `lines` answers outstanding, so nothing is read ahead.
    func receive(lines: Int, into response: inout [UInt8]) throws(BenchError) {
        response.removeAll(keepingCapacity: true)
        var seen = 0
        while seen < lines {
            let open = try receivePlaintext { piece in
                seen += piece.baseAddress.map { Self.countNewlines($0, piece.count) } ?? 0
                response.append(contentsOf: piece)
            }
            guard open else { throw .closed("after \(seen) of \(lines) lines: \(BenchError.excerpt(response))") }
        }
    }

    /// Reads one line (without its `\n`), keeping any bytes after it for the next call.
    func readLine() throws(BenchError) -> [UInt8] {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            guard try receivePlaintext({ pending.append(contentsOf: $0) }) else {
                throw .closed(BenchError.excerpt(pending))
            }
        }
    }

    /// What one `recv` came to.
    private enum Received {
        case data, endOfStream, failed(BenchError)
    }

    /// One blocking `recv`; hands the plaintext it yields (none, for a partial TLS record) to `deliver`.
    /// - Returns: `false` at the end of the stream.
    private func receivePlaintext(_ deliver: (UnsafeRawBufferPointer) -> Void) throws(BenchError) -> Bool {
        let outcome = withUnsafeTemporaryAllocation(byteCount: Self.chunkSize, alignment: 16) { buffer -> Received in
            let count: Int
            do throws(SystemCallError) {
                count = try syscall(where: "recv") { recv(descriptor, buffer.baseAddress, buffer.count, 0) }
            } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                return .failed(.closed("no answer within \(Self.receiveTimeoutSeconds) s"))  // SO_RCVTIMEO
            } catch {
                return .failed(.system(call: error.call, errno: error.errno))
            }
            guard count > 0 else { return .endOfStream }
            let piece = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            guard let tls else {
                deliver(piece)
                return .data
            }
            tls.advance(receiving: piece, deliver: deliver)
            if case .failed(let error) = tls.state { return .failed(.other("TLS: \(error)")) }
            return .data
        }
        switch outcome {
        case .data:
            try flushCiphertext()
            return true
        case .endOfStream: return false
        case .failed(let error): throw error
        }
    }

    /// Runs the TLS handshake to its end (blocking).
    private func handshake() throws(BenchError) {
        guard let tls else { return }
        tls.advance { _ in }
        while tls.isHandshaking {
            try flushCiphertext()
            guard try receivePlaintext({ _ in }) else { throw .closed("during the TLS handshake") }
        }
        if case .failed(let error) = tls.state { throw .other("TLS handshake: \(error)") }
        try flushCiphertext()
    }

    /// Sends the TLS session's pending ciphertext.
    private func flushCiphertext() throws(BenchError) {
        guard let tls, tls.pendingCiphertext > 0 else { return }
        let bytes = tls.withPendingCiphertext { Array($0) }
        tls.consumeCiphertext(bytes.count)
        try sendRaw(bytes)
    }

    private func sendRaw(_ bytes: [UInt8]) throws(BenchError) {
        // `withUnsafeBytes` rethrows untyped: the error crosses it in a `Result`.
        let sent = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in
                try writeAll(buffer, where: "send") { rest in
                    Glibc.send(descriptor, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                }
            }
        }
        if case .failure(let error) = sent { throw .system(call: error.call, errno: error.errno) }
    }

    /// Counts `\n` in `length` bytes at `base` with `memchr`.
    static func countNewlines(_ base: UnsafeRawPointer, _ length: Int) -> Int {
        var found = 0
        var cursor = base
        var remaining = length
        while remaining > 0, let hit = memchr(cursor, 0x0A, remaining) {
            found += 1
            let next = UnsafeRawPointer(hit) + 1
            remaining -= next - cursor
            cursor = next
        }
        return found
    }

    /// Counts non-overlapping occurrences of `needle` in `haystack`, in one pass: a position is compared with
    /// `memcmp` only when its first two bytes are the needle's, so a byte that starts many other tokens (the `"` of
    /// `"result"` in a JSON answer) costs a comparison, not a call: checking a ping answer fell from over 600
    /// instructions to about 317. (`memmem` is a GNU extension missing from Glibc's module map.)
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard !needle.isEmpty, haystack.count >= needle.count else { return 0 }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress else { return 0 }
                let length = pin.count
                let first = pinBase[0]
                let second = length > 1 ? pinBase[1] : 0
                let lastStart = hay.count - length
                var found = 0
                var offset = 0
                while offset <= lastStart {
                    if hayBase[offset] == first, length == 1 || hayBase[offset + 1] == second,
                       memcmp(hayBase + offset, pinBase, length) == 0 {
                        found += 1
                        offset += length
                    } else {
                        offset += 1
                    }
                }
                return found
            }
        }
    }
}
