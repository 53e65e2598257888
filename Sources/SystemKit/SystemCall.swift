#if canImport(Glibc)
import Glibc
#endif

/// What a system call on a descriptor did: its result, or "it would block" on a non-blocking descriptor.
public enum IOResult<Value: Sendable>: Sendable {
    /// The call succeeded and returned `value` (a byte count, a descriptor, …).
    case processed(Value)
    /// The descriptor is non-blocking and the call would have blocked (`EAGAIN`/`EWOULDBLOCK`).
    case wouldBlock
}

/// A system call that failed with an `errno` other than `EINTR` (and, for a non-blocking call, `EAGAIN`).
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call that failed (`read`, `send`, `fsync`, …).
    public var call: String
    /// Its `errno`.
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The system's description of ``errno``.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(call): \(reason)" }
}

/// Runs `body`, a system call returning -1 and setting `errno` on failure, the one way every module does:
/// `EINTR` is retried; on a non-blocking descriptor (`blocking: false`) `EAGAIN`/`EWOULDBLOCK` is
/// ``IOResult/wouldBlock``; anything else is thrown. The model is swift-nio's `syscall(blocking:where:_:)`
/// (`Sources/NIOPosix/System.swift`).
/// - Parameters:
///   - blocking: whether the descriptor blocks (then `EAGAIN` is an error like any other).
///   - function: the call's name, for the error.
/// - Throws: ``SystemCallError``.
@inline(__always)
public func syscall<T: FixedWidthInteger & Sendable>(blocking: Bool, where function: String,
                                                      _ body: () -> T) throws(SystemCallError) -> IOResult<T> {
    while true {
        let result = body()
        if result != -1 { return .processed(result) }
        let error = errno
        if error == EINTR { continue }
        if !blocking, error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
        throw SystemCallError(call: function, errno: error)
    }
}

/// ``syscall(blocking:where:_:)`` for a call on a blocking descriptor or a path: its result.
/// - Throws: ``SystemCallError``.
@inline(__always)
public func syscall<T: FixedWidthInteger & Sendable>(where function: String, _ body: () -> T) throws(SystemCallError) -> T {
    // A blocking call never answers `.wouldBlock`: EAGAIN is thrown.
    guard case .processed(let value) = try syscall(blocking: true, where: function, body) else {
        throw SystemCallError(call: function, errno: EAGAIN)
    }
    return value
}

/// The one write-all: hands `bytes` to `write` (a `write(2)` or `send(2)` over some descriptor, returning the
/// count written or -1) until every byte is taken, retrying `EINTR` and short writes.
/// - Parameter function: the call's name, for the error.
/// - Throws: ``SystemCallError`` from the first failed write (including `EAGAIN`: use it on blocking
///   descriptors only); a write that takes 0 bytes of a non-empty rest is `EIO`, never an endless loop.
public func writeAll(_ bytes: UnsafeRawBufferPointer, where function: String = "write",
                      using write: (UnsafeRawBufferPointer) -> Int) throws(SystemCallError) {
    var offset = 0
    while offset < bytes.count {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        let written = try syscall(where: function) { write(rest) }
        guard written > 0 else { throw SystemCallError(call: function, errno: EIO) }
        offset += written
    }
}

/// ``writeAll(_:where:using:)`` with `write(2)` on a blocking descriptor (a file, standard output).
/// - Throws: ``SystemCallError``.
public func writeAll(_ descriptor: Int32, _ bytes: some Sequence<UInt8>) throws(SystemCallError) {
    let array = Array(bytes)
    // `withUnsafeBytes` rethrows untyped: the error crosses it in a `Result`.
    let written = array.withUnsafeBytes { buffer in
        Result { () throws(SystemCallError) in
            try writeAll(buffer) { rest in Glibc.write(descriptor, rest.baseAddress, rest.count) }
        }
    }
    try written.get()
}
