import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of the daemon's standard-error log lines on one thread, `expensed: <time stamp> <message>\n`: built
/// in a buffer the thread keeps (no allocation per line once it has grown) and written with one `write` per line,
/// or, while ``ServerLog/coalescingWrites(_:)`` runs on the thread, with one `write` for every line logged
/// meanwhile. The ledger's thread logs one line per push as it answers a group commit's pushes
/// (``Ledger``'s flush), so a group of 100 pushes costs one `write`, not 100. The lines and their order are the
/// same either way.
///
/// Confined to its thread (it is reached only through ``forThisThread``), so it needs no lock.
final class LogLineBuffer {
    private let descriptor: Int32
    private var bytes: [UInt8] = []
    /// How many ``ServerLog/coalescingWrites(_:)`` are open on this thread; lines are written when it falls to 0.
    private var coalescing = 0
    /// The time stamp of the second ``stampSecond``, kept: most lines of a second share it.
    private var stamp: [UInt8] = []
    private var stampSecond = Int.min // seconds, not money

    /// What the buffer keeps between lines at most; a larger one (a big group) is released after its write.
    static let keptCapacity = 64 * 1024

    /// A buffer writing to `descriptor` (standard error for the daemon; a pipe in tests).
    init(descriptor: Int32) { self.descriptor = descriptor }

    /// This thread's buffer for standard error, made on its first line and released when the thread ends.
    static var forThisThread: LogLineBuffer {
        if let pointer = pthread_getspecific(logLineBufferKey) {
            return Unmanaged<LogLineBuffer>.fromOpaque(pointer).takeUnretainedValue()
        }
        let buffer = LogLineBuffer(descriptor: 2)
        pthread_setspecific(logLineBufferKey, Unmanaged.passRetained(buffer).toOpaque())
        return buffer
    }

    /// Adds the line of `message` at `secondsSince1970`; writes it at once unless writes are being coalesced.
    func append(_ message: String, secondsSince1970 seconds: Int) {
        if seconds != stampSecond {
            stamp.removeAll(keepingCapacity: true)
            LogTimestamp.append(secondsSince1970: seconds, to: &stamp)
            stampSecond = seconds
        }
        bytes.append(contentsOf: "expensed: ".utf8)
        bytes.append(contentsOf: stamp)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: message.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if coalescing == 0 { writeOut() }
    }

    /// Runs `body`; the lines appended meanwhile are written together when the outermost such call returns.
    func coalescingWrites(_ body: () throws -> Void) rethrows {
        coalescing += 1
        defer {
            coalescing -= 1
            if coalescing == 0 { writeOut() }
        }
        try body()
    }

    /// Writes what is buffered (a log line that cannot be written is dropped, as before: the log never stops
    /// the daemon).
    private func writeOut() {
        guard !bytes.isEmpty else { return }
        let descriptor = descriptor
        bytes.withUnsafeBytes { buffer in
            _ = try? writeAll(buffer) { rest in Glibc.write(descriptor, rest.baseAddress, rest.count) }
        }
        if bytes.capacity > Self.keptCapacity { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
    }
}

/// The thread-specific slot of ``LogLineBuffer/forThisThread``; a thread's buffer is released when it ends.
private let logLineBufferKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { pointer in
        guard let pointer else { return }
        Unmanaged<LogLineBuffer>.fromOpaque(pointer).release()
    }
    precondition(created == 0, "pthread_key_create failed: the process is out of thread-specific keys")
    return key
}()
