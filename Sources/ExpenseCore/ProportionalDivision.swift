import FoundationEssentials

/// The one exact division of an amount in proportion to weights, by largest remainder: a split's shares among
/// members (``SplitSpec``), an expense's parts among its categories in a converted view or a member's share
/// (``ExpenseParts``). Every result adds up to the amount exactly.
package enum ProportionalDivision {
    /// `amount` divided in proportion to `weights`: each gets the floor of `amount × weight / total`, and the `R`
    /// units left over (fewer than the number of weights) go one each to the `R` largest remainders; equal
    /// remainders are told apart by a rotation that `rotation`'s 16 bytes (read as a big-endian `UInt128`,
    /// modulo the count) start, so the odd unit does not always fall on the same place from one record to the
    /// next, without any stored state.
    /// - Parameters:
    ///   - amount: 0 to ``ExpenseRules/maximumAmount``.
    ///   - weights: each 0 … ``ExpenseRules/maximumAmount``, their sum above 0 and below 2^63.
    /// - Returns: one amount per weight, in order; `nil` when the inputs are outside those ranges.
    package static func divide(_ amount: Int64, weights: [Int64], rotation: UUID) -> [Int64]? {
        // Products in Int128: an amount below 2^53 times a weight below 2^53, with a total below 2^63, cannot
        // overflow.
        guard !weights.isEmpty, amount >= 0, weights.allSatisfy({ $0 >= 0 }) else { return nil }
        let total = weights.reduce(Int128(0)) { $0 + Int128($1) }
        guard total > 0 else { return nil }
        var amounts: [Int64] = []
        var remainders: [Int128] = []
        amounts.reserveCapacity(weights.count)
        remainders.reserveCapacity(weights.count)
        var given = Int128(0)
        for weight in weights {
            let product = Int128(amount) * Int128(weight)
            guard let floor = Int64(exactly: product / total) else { return nil }
            amounts.append(floor)
            remainders.append(product % total)
            given += Int128(floor)
        }
        let count = weights.count
        let (high, low) = SplitSpec.memberKey(rotation)
        let start = Int((UInt128(high) << 64 | UInt128(low)) % UInt128(count))
        // Largest remainder first; among equal remainders, rotation order from `start`.
        let order = weights.indices.sorted { a, b in
            if remainders[a] != remainders[b] { return remainders[a] > remainders[b] }
            return (a - start + count) % count < (b - start + count) % count
        }
        // The floors are each at most the exact share and fall short of it by less than one unit each.
        let left = Int(Int128(amount) - given)
        guard (0..<count).contains(left) else { return nil }
        for index in order.prefix(left) { amounts[index] += 1 }
        return amounts
    }
}
