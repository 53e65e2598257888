/// The live expenses of one currency, summed exactly however large the sum: the parts of each amount above
/// and below bit 32 are summed apart (``high``, ``low``), so neither sum can overflow before the cache holds
/// 2^31 expenses, and the total is `high · 2^32 + low`. The cache's `live_total` table holds these three
/// numbers per currency (`SQLiteExpenseStore+Schema.swift`, migration 7); the JSON and memory stores hold
/// them in ``StoreState``.
///
/// A total past `Int64` is kept, not refused: pulled records and rebased local changes may add up past it
/// (the daemon checks its own ledger, not this cache's view), and deleting some brings it back.
package struct LiveTotal: Sendable, Equatable {
    /// The sum of `amount >> 32` over the live expenses.
    package var high: Int64 = 0
    /// The sum of `amount & 0xFFFF_FFFF` over the live expenses.
    package var low: Int64 = 0
    /// How many live expenses there are.
    package var count: Int64 = 0

    package init(high: Int64 = 0, low: Int64 = 0, count: Int64 = 0) {
        (self.high, self.low, self.count) = (high, low, count)
    }

    /// `2^32 - 1`, the mask of the low part (also written in the schema's triggers).
    static let lowMask: Int64 = 0xFFFF_FFFF

    /// Counts one more live expense of `amount`.
    ///
    /// Plain `+`: each part of an amount (at most 2^53 − 1) is below 2^32, so a sum overflows only past 2^31
    /// expenses, which a cache cannot hold; a trap there is a broken invariant, not a money overflow.
    package mutating func add(_ amount: Int64) {
        high += amount >> 32
        low += amount & Self.lowMask
        count += 1
    }

    /// Takes away one live expense of `amount` (counted by ``add(_:)`` before).
    package mutating func remove(_ amount: Int64) {
        high -= amount >> 32
        low -= amount & Self.lowMask
        count -= 1
    }

    /// The exact sum of the amounts, or `nil` when it does not fit in `Int64` (how the local overflow rule
    /// refuses, `LocalLedger+Limits.swift`).
    package var sum: Int64? {
        Int64(exactly: Int128(high) << 32 + Int128(low))
    }
}
