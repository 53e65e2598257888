#if canImport(Glibc)
import Glibc
import CEpoll
#endif

/// A host and port as written by a person: `127.0.0.1:7468`, `localhost:7468`, `[::1]:7468`.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host: a name, an IPv4 address, or an IPv6 address without brackets.
    public var host: String
    /// The TCP port; 0 asks the system for a free one when listening.
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (IPv6 hosts in brackets).
    /// - Throws: ``TransportError/invalidAddress(_:)``.
    public init(parsing text: String) throws(TransportError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidAddress(text) }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalidAddress(text) }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalidAddress(text) }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { throw .invalidAddress(text) }  // bare IPv6 needs brackets
        }
        // A host beginning with `[` is no host, and would be written back (description) as text that does not parse.
        guard !hostPart.isEmpty, !hostPart.hasPrefix("["), !portPart.isEmpty, portPart.allSatisfy(\.isASCII),
              let port = UInt16(portPart) else { throw .invalidAddress(text) }
        self.init(host: String(hostPart), port: port)
    }

    /// `HOST:PORT`, with IPv6 hosts in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether the host is a loopback address or `localhost` (nothing else can reach the socket).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Resolves to socket addresses with `getaddrinfo` (numeric port, TCP).
    func resolve(passive: Bool) throws(TransportError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            throw .resolveFailed(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var result: [ResolvedAddress] = []
        var cursor = list
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                result.append(ResolvedAddress(family: info.pointee.ai_family, address: address, length: info.pointee.ai_addrlen))
            }
            cursor = info.pointee.ai_next
        }
        if result.isEmpty { throw .resolveFailed(host: host, reason: "no address") }
        return result
    }
}

/// One `sockaddr` from `getaddrinfo`, copied into storage we own.
struct ResolvedAddress {
    var family: Int32
    var storage = sockaddr_storage()
    var length: socklen_t

    init(family: Int32, address: UnsafePointer<sockaddr>, length: socklen_t) {
        self.family = family
        self.length = length
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
    }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.family = Int32(storage.ss_family)
        self.storage = storage
        self.length = length
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The numeric host and port.
    var socketAddress: SocketAddress {
        var hostBuffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var portBuffer = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withSockAddr { address, length in
            getnameinfo(address, length, &hostBuffer, socklen_t(hostBuffer.count), &portBuffer, socklen_t(portBuffer.count),
                        NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard status == 0 else { return SocketAddress(host: "?", port: 0) }
        let host = String(decoding: hostBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: portBuffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SocketAddress(host: host, port: UInt16(port) ?? 0)
    }

    /// The local (`getsockname`) or peer (`getpeername`) address of a socket.
    static func of(socket fd: Int32, peer: Bool) -> ResolvedAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                peer ? getpeername(fd, address, &length) : getsockname(fd, address, &length)
            }
        }
        guard status == 0 else { return nil }
        return ResolvedAddress(storage: storage, length: length)
    }
}
