#if canImport(Glibc)
import Glibc
#endif

/// Small helpers over file-descriptor sockets, shared by the server loop and the blocking client.
package enum Socket {
    /// Sets or clears `O_NONBLOCK`.
    package static func setNonBlocking(_ fd: Int32, _ on: Bool) throws(TransportError) {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0 else { throw .lastError("fcntl") }
        let updated = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard fcntl(fd, F_SETFL, updated) == 0 else { throw .lastError("fcntl") }
    }

    /// Disables Nagle's algorithm: a reply of 60 bytes must not wait for the previous one's ACK.
    package static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sets an integer socket option, ignoring failure (used for best-effort tuning).
    package static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// `send` with `MSG_NOSIGNAL`, so a peer that went away yields `EPIPE` instead of killing the process.
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        return Glibc.send(fd, base, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit.
    /// - Returns: the soft limit now in effect.
    @discardableResult
    package static func raiseFileDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }
}
