/// Writes `put` mutations with fresh v4 UUIDs and varied, valid fields, straight into bytes.
///
/// Deterministic for a seed; fast enough (no Foundation UUID, no JSONEncoder) that the client does not
/// become the bottleneck it is measuring.
struct MutationGenerator {
    private var high: UInt64
    private var counter: UInt64

    /// Twelve categories and two years of days give summaries realistic group counts.
    static let categories = ["food", "travel", "rent", "office", "software", "hardware",
                             "training", "phone", "fuel", "parking", "postage", "other"]
    /// `2024-01-01` … `2025-12-30`, precomputed.
    static let dates: [[UInt8]] = {
        let monthLengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var result: [[UInt8]] = []
        for year in [2024, 2025] {
            for (month, length) in monthLengths.enumerated() {
                let days = (year == 2025 && month == 1) ? 28 : length
                for day in 1...days {
                    let text = "\(year)-\(month + 1 < 10 ? "0" : "")\(month + 1)-\(day < 10 ? "0" : "")\(day)"
                    result.append(Array(text.utf8))
                }
            }
        }
        return result
    }()

    init(seed: UInt64) {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        high = Self.splitMix(&state)
        counter = Self.splitMix(&state) >> 8
    }

    /// The next UUID as 36 lower-case bytes (version 4, RFC 4122 variant).
    mutating func nextUUID() -> [UInt8] {
        counter &+= 1
        let hi = (high & ~0xF000) | 0x4000
        let lo = (counter & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 8 || index == 12 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int((hi >> UInt64(shift)) & 0xF)])
        }
        for (index, shift) in stride(from: 60, through: 0, by: -4).enumerated() {
            if index == 0 || index == 4 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int((lo >> UInt64(shift)) & 0xF)])
        }
        return out
    }

    /// Appends one `put` creating a new expense (baseVersion 0).
    mutating func appendPut(mutationId: Int, to bytes: inout [UInt8]) {
        let uuid = nextUUID()
        let variety = Int(truncatingIfNeeded: counter % 1_000_003)
        bytes += Array(#"{"mutationId":"#.utf8)
        Self.appendDecimal(mutationId, to: &bytes)
        bytes += Array(#","type":"put","id":""#.utf8)
        bytes += uuid
        bytes += Array(#"","baseVersion":0,"fields":{"amount":"#.utf8)
        Self.appendDecimal(100 + (variety &* 7919) % 50_000, to: &bytes)
        bytes += Array(#","currency":"USD","category":""#.utf8)
        bytes += Array(Self.categories[variety % Self.categories.count].utf8)
        bytes += Array(#"","date":""#.utf8)
        bytes += Self.dates[variety % Self.dates.count]
        bytes += Array(#"","note":"bench"}}"#.utf8)
    }

    /// Appends the decimal digits of a non-negative integer.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        bytes += Array(String(value).utf8)
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
