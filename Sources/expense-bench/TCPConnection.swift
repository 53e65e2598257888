import Glibc

/// A blocking TCP client socket with `TCP_NODELAY`, owned by one thread at a time.
///
/// The load generator uses one per connection; reading counts `\n` bytes, so the same code drives
/// expensed (JSON-RPC lines) and Redis (`+PONG\r\n`).
final class TCPConnection {
    /// The socket; closed in `deinit`.
    let descriptor: Int32
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    /// Bytes received after the last complete line by ``readLine()``.
    private var pending: [UInt8] = []

    /// Seconds a read may wait for an answer before the round fails.
    static let receiveTimeoutSeconds = 60

    /// Connects to `host:port` (IPv4 dotted quad).
    /// - Throws: ``BenchError/system(call:errno:)``.
    init(host: String, port: UInt16) throws(BenchError) {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { throw .lastSystemError("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(socketDescriptor)
            throw .other("not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = BenchError.lastSystemError("connect \(host):\(port)")
            close(socketDescriptor)
            throw error
        }
        var one: Int32 = 1
        setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // A server that stops answering makes the figure fail after this long instead of hanging the bench.
        var timeout = timeval(tv_sec: Self.receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = socketDescriptor
    }

    deinit { close(descriptor) }

    /// Writes every byte of `bytes`.
    func send(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.send(descriptor, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                throw .lastSystemError("send")
            }
        }
    }

    /// Reads until `lines` newline bytes have arrived; every byte read is appended to `response`
    /// (which is emptied first). Used with exactly `lines` answers outstanding, so nothing is read ahead.
    func receive(lines: Int, into response: inout [UInt8]) throws(BenchError) {
        response.removeAll(keepingCapacity: true)
        var seen = 0
        while seen < lines {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                seen += chunk.withUnsafeBytes { buffer in
                    buffer.baseAddress.map { Self.countNewlines($0, count) } ?? 0
                }
                response.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                throw .closed("after \(seen) of \(lines) lines: \(BenchError.excerpt(response))")
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw .closed("no answer within \(Self.receiveTimeoutSeconds) s after \(seen) of \(lines) lines")
            } else if errno != EINTR {
                throw .lastSystemError("recv")
            }
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
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                throw .closed(BenchError.excerpt(pending))
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw .closed("no answer within \(Self.receiveTimeoutSeconds) s")
            } else if errno != EINTR {
                throw .lastSystemError("recv")
            }
        }
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

    /// Counts non-overlapping occurrences of `needle` in `haystack` (`memchr` for the first byte, then
    /// `memcmp`; `memmem` is a GNU extension missing from Glibc's module map).
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard let first = needle.first else { return 0 }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress else { return 0 }
                var found = 0
                var offset = 0
                while hay.count - offset >= pin.count,
                      let hit = memchr(hayBase + offset, Int32(first), hay.count - offset - pin.count + 1) {
                    let position = UnsafeRawPointer(hit) - hayBase
                    if memcmp(hit, pinBase, pin.count) == 0 {
                        found += 1
                        offset = position + pin.count
                    } else {
                        offset = position + 1
                    }
                }
                return found
            }
        }
    }
}
