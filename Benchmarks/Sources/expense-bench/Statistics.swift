/// Order statistics over samples (latencies, per-run figures).
enum Statistics {
    /// The median; the mean of the two middle values for an even count. `nil` when empty.
    static func median(_ values: [Double]) -> Double? { // not money: a measurement
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `p`-th percentile (0...100) by the nearest-rank method. `nil` when empty.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return percentileOfSorted(sorted, p)
    }

    /// Nearest-rank percentile of an already sorted array.
    static func percentileOfSorted(_ sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) // not money: a measurement
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
