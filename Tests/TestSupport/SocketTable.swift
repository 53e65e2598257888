import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The test process's sockets, read from `/proc`: which descriptor holds a given TCP connection.
public enum SocketTable {
    /// The descriptor (and its socket's inode, as `/proc/self/fd` names it) of this process's TCP socket on
    /// 127.0.0.1 with the given local and remote ports.
    public static func descriptor(localPort: UInt16, remotePort: UInt16) -> (Int32, String)? {
        guard let table = readToEnd("/proc/self/net/tcp") else { return nil }
        let inodes = table.split(separator: "\n").dropFirst().compactMap { row -> String? in
            let fields = row.split(separator: " ")
            guard fields.count > 9, port(fields[1]) == localPort, port(fields[2]) == remotePort else { return nil }
            return "socket:[\(fields[9])]"
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in descriptors {
            guard let fd = Int32(name), let link = inode(of: fd), inodes.contains(link) else { continue }
            return (fd, link)
        }
        return nil
    }

    /// What `/proc/self/fd/FD` points at (`socket:[INODE]` for a socket), or `nil` once it is closed.
    public static func inode(of fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    /// The local port of a connected socket, or its peer's.
    public static func port(of fd: Int32, peer: Bool = false) -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Checks `condition` every millisecond for at most `seconds`; whether it became true.
    public static func waits(seconds: Double, until condition: () -> Bool) -> Bool { // not money: seconds
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    /// The port of an `ADDRESS:PORT` field of `/proc/net/tcp` (hexadecimal).
    private static func port(_ field: Substring) -> UInt16? {
        field.split(separator: ":").last.flatMap { UInt16($0, radix: 16) }
    }

    /// A `/proc` file read to its end (Foundation's file reading stops early on a table longer than a page).
    private static func readToEnd(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
