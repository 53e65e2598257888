#if canImport(Glibc)
import Glibc
#endif

/// Splits a byte stream into lines terminated by `\n`, with a maximum line length.
///
/// - A trailing `\r` is stripped (so `\r\n` clients work) and blank lines are skipped.
/// - The limit counts the bytes of a line without its `\n` and without a trailing `\r`.
/// - The framer never holds more than `maximumLineLength + 1` bytes of an unterminated line: as soon as the
///   unterminated tail exceeds the limit, ``nextLine()`` reports ``Line/tooLong`` (before the `\n` arrives),
///   drops what it buffered, and keeps reporting `tooLong` from then on: the stream is no longer in sync.
///
/// Scanning uses `memchr` over the raw bytes and remembers how far it already looked, so a line that
/// arrives one byte at a time is scanned once, not quadratically.
public struct LineFramer: Sendable {
    /// One result of ``LineFramer/nextLine()``.
    public enum Line: Hashable, Sendable {
        /// A complete line, without `\n` or a trailing `\r`, never empty.
        case line(ArraySlice<UInt8>)
        /// The stream holds a line longer than the limit; the framer is now poisoned.
        case tooLong
    }

    /// The longest line accepted, in bytes, not counting `\n` or a trailing `\r`.
    public let maximumLineLength: Int
    private var buffer: [UInt8] = []
    /// Index of the first byte not yet returned.
    private var start = 0
    /// Index from which the next scan for `\n` starts (everything in `start..<scanned` has no `\n`).
    private var scanned = 0
    private var poisoned = false

    /// Creates a framer.
    /// - Parameter maximumLineLength: the longest line accepted (default 1 MiB, the protocol's default).
    public init(maximumLineLength: Int = 1_048_576) {
        precondition(maximumLineLength > 0, "maximumLineLength must be positive")
        self.maximumLineLength = maximumLineLength
    }

    /// Bytes received but not yet returned as lines.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The start of the line being received: the bytes after the last complete line, none of them a `\n` once
    /// ``nextLine()`` has returned `nil` (what has arrived of a long line, for a reader that acts on its start).
    public var unterminatedLine: ArraySlice<UInt8> { buffer[start...] }

    /// The bytes of storage the framer holds now (for tests of ``retainedCapacity``).
    var bufferCapacity: Int { buffer.capacity }

    /// The most storage a framer keeps once everything in it
    /// is consumed: a small request or answer reuses it, a larger one is given back, so an idle connection that
    /// once carried a large line costs no more than one that did not (keeping 64 KiB here and in the output,
    /// 5,000 idle connections that once carried a pull answer could hold 625 MiB).
    package static let retainedCapacity = 4096

    /// Appends received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !poisoned, !bytes.isEmpty else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes.
    public mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        guard !poisoned else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, ``Line/tooLong`` if the limit was exceeded, or `nil` when more bytes are needed.
    ///
    /// The returned slice shares the framer's storage: use it before the next `append`, or the append copies.
    public mutating func nextLine() -> Line? {
        while true {
            if poisoned { return .tooLong }
            let count = buffer.count
            guard scanned < count else { return checkUnterminatedTail() }
            let newline: Int? = buffer.withUnsafeBytes { raw -> Int? in
                guard let base = raw.baseAddress else { return nil }
                guard let found = memchr(base + scanned, 0x0A, count - scanned) else { return nil }
                return base.distance(to: UnsafeRawPointer(found))
            }
            guard let newline else {
                scanned = count
                return checkUnterminatedTail()
            }
            var end = newline
            if end > start, buffer[end - 1] == 0x0D { end -= 1 }
            let lineStart = start
            start = newline + 1
            scanned = start
            if end - lineStart > maximumLineLength { return poison() }
            if end == lineStart { continue }  // blank line
            return .line(buffer[lineStart..<end])
        }
    }

    /// Drops every buffered byte (used when a connection stops caring about its input).
    public mutating func reset() {
        buffer = []
        start = 0
        scanned = 0
    }

    private mutating func checkUnterminatedTail() -> Line? {
        let pending = buffer.count - start
        // One extra byte is allowed when it is a `\r` that a following `\n` will strip.
        if pending > maximumLineLength + 1 || (pending == maximumLineLength + 1 && buffer.last != 0x0D) {
            return poison()
        }
        if pending == 0, buffer.capacity > Self.retainedCapacity { reset() }  // an idle connection keeps no large buffer
        return nil
    }

    private mutating func poison() -> Line {
        poisoned = true
        reset()
        return .tooLong
    }

    /// Moves unconsumed bytes to the front when enough consumed bytes sit before them.
    private mutating func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= Self.retainedCapacity)
            start = 0
            scanned = 0
        } else if start >= 4096, start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
    }
}
