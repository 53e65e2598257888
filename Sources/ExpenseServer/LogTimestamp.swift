import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The time stamp of a log line, `2026-12-01T18:13:09Z` (UTC, whole seconds): the text Foundation's
/// `Date.formatted(.iso8601)` gives, written from `gmtime_r` into bytes.
///
/// The daemon logs every push on the ledger's thread (``RequestDispatcher/push(_:id:)``), so this runs once per
/// push; Foundation's formatter took ~18k of the ~277k instructions a one-mutation push cost. `ServerLogTests`
/// compares the two over many instants.
enum LogTimestamp {
    /// The UTC time stamp of `seconds` since 1970 (rounded down to the second, as Foundation's style does).
    static func text(secondsSince1970 seconds: Int) -> String { // seconds, not money
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(secondsSince1970: seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 20 bytes of ``text(secondsSince1970:)`` to `bytes` (what ``LogLineBuffer`` writes).
    static func append(secondsSince1970 seconds: Int, to bytes: inout [UInt8]) { // seconds, not money
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else {
            bytes.append(contentsOf: Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601).utf8)
            return
        }
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The time stamp of now.
    static func now() -> String { text(secondsSince1970: nowSecondsSince1970()) }

    /// The seconds since 1970 of now (the real-time clock, rounded down).
    static func nowSecondsSince1970() -> Int { // seconds, not money
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int(spec.tv_sec)
    }
}
