import ProcessSpawn
import Synchronization

/// Seeds that no two sources of one figure share, across all of the figure's runs. Every run must create records
/// with ids no earlier run used: a create of an id that exists with the same values is answered `applied` with
/// nothing written (and Redis doing a push's work answers it with a conflict), so a run repeating the first run's
/// ids would measure less work than a push of new expenses.
final class SeedSequence: Sendable {
    private let next: Mutex<UInt64>

    /// Seeds from `base` on (the clock, so that a second bench on the same daemon's data does not repeat them).
    init(base: UInt64 = UInt64(MonotonicClock.now() * 1000)) { next = Mutex(base) }

    /// A seed never returned before by this sequence.
    func take() -> UInt64 { next.withLock { value in value &+= 1; return value } }
}

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

    /// The values of one new expense: a fresh id, an amount in cents, a category and a `YYYY-MM-DD` date.
    struct Create {
        var id: [UInt8]
        var amount: Int
        var category: String
        var date: [UInt8]

        /// The day as `YYYYMMDD` (how the SQL stores keep it) and the month as `YYYYMM`.
        var day: Int { Self.digits(date[0..<4]) * 10_000 + Self.digits(date[5..<7]) * 100 + Self.digits(date[8..<10]) }
        var month: Int { day / 100 }

        private static func digits(_ bytes: ArraySlice<UInt8>) -> Int {
            bytes.reduce(0) { $0 * 10 + Int($1 &- UInt8(ascii: "0")) }
        }

        /// The `changes` a store keeps in the history entry of this creation, in the daemon's shape
        /// (`HistoryEntry.creationChangesJSON`): every field from nothing, members in byte order.
        var changesJSON: [UInt8] {
            var bytes = Array(#"{"category":{"to":""#.utf8) + Array(category.utf8)
            bytes += Array(#""},"date":{"to":""#.utf8) + date
            bytes += Array(#""},"money":{"to":{"amount":"#.utf8)
            MutationGenerator.appendDecimal(amount, to: &bytes)
            bytes += Array(#","currency":"USD"}},"note":{"to":"bench"}}"#.utf8)
            return bytes
        }
    }

    /// The next new expense's values (what ``appendPut(mutationId:to:)`` writes).
    mutating func nextCreate() -> Create {
        let uuid = nextUUID()
        let variety = Int(truncatingIfNeeded: counter % 1_000_003)
        return Create(id: uuid, amount: 100 + (variety &* 7919) % 50_000, category: Self.categories[variety % Self.categories.count],
                      date: Self.dates[variety % Self.dates.count])
    }

    /// Appends one `put` creating a new expense (baseVersion 0).
    mutating func appendPut(mutationId: Int, to bytes: inout [UInt8]) {
        let create = nextCreate()
        bytes += Array(#"{"mutationId":"#.utf8)
        Self.appendDecimal(mutationId, to: &bytes)
        bytes += Array(#","type":"put","id":""#.utf8)
        bytes += create.id
        bytes += Array(#"","baseVersion":0,"fields":{"amount":"#.utf8)
        Self.appendDecimal(create.amount, to: &bytes)
        bytes += Array(#","currency":"USD","category":""#.utf8)
        bytes += Array(create.category.utf8)
        bytes += Array(#"","date":""#.utf8)
        bytes += create.date
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
