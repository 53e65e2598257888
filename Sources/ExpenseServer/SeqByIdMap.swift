import FoundationEssentials

/// The SQLite ledger store's id → seq map (where each record is: its current seq), compact: ~24 bytes per slot
/// and no allocation per entry, where a `[UUID: Int64]` held ~48 bytes per expense once doubled on growth (for
/// 500,000 expenses: 14.5 MiB instead of 24.1).
///
/// Open addressing with linear probing over 64 segments, each a flat array of slots (an id as two `UInt64`
/// and its seq; seq 0, which no record has, marks an empty slot). The hash picks the segment by its top bits
/// and the home slot in the segment by the rest. A segment grows by a quarter once it is 7/8 full, so the whole
/// map sits between 7/10 and 7/8 full (27–34 bytes per entry), and a growth rehashes one segment (1/64 of the
/// map) at a time: no moment holds two copies of the whole map, and no push waits for a whole rehash.
/// Removal shifts the following entries of the probe run back (no tombstones).
///
/// The hash is Swift's `Hasher` (seeded per process, as `Dictionary`'s), so ids a client chooses cannot be
/// aimed at one probe run.
///
/// - Important: Seqs are positive (a record's seq is `head + 1` of a store that starts at 0); inserting 0 or
///   less is a programmer error (`precondition`).
package struct SeqByIdMap {
    /// One slot: the id's 16 bytes as two words, and its seq (0: empty).
    struct Slot {
        var high: UInt64
        var low: UInt64
        var seq: Int64

        static let empty = Slot(high: 0, low: 0, seq: 0)
    }

    /// One segment: a flat open-addressing table.
    struct Segment {
        var slots: [Slot] = []
        var count = 0
    }

    /// The segment is chosen by the hash's top `segmentBits` bits.
    static let segmentBits = 6
    static let segmentCount = 1 << segmentBits
    /// The smallest segment that holds anything.
    static let minimumCapacity = 8

    private var segments: [Segment]
    /// How many ids the map holds.
    package private(set) var count = 0
    /// A replacement for the seeded hash, for tests that force collisions; `nil`: `Hasher`.
    private let testHash: (@Sendable (UInt64, UInt64) -> UInt64)?

    /// An empty map hashing with `Hasher`.
    package init() {
        self.init(testHash: nil)
    }

    /// An empty map hashing with `testHash` (tests: a constant hash puts every id in one probe run).
    package init(testHash: (@Sendable (UInt64, UInt64) -> UInt64)?) {
        self.testHash = testHash
        segments = Array(repeating: Segment(), count: Self.segmentCount)
    }

    /// Bytes held by the slot arrays (what the map costs, beside 64 small segment headers).
    package var allocatedBytes: Int {
        segments.reduce(0) { $0 + $1.slots.capacity * MemoryLayout<Slot>.stride }
    }

    /// Makes room for `expected` ids in all, so loading them grows nothing (each segment sized for its share at
    /// 4/5 load).
    package mutating func reserveCapacity(_ expected: Int) {
        let share = (expected + Self.segmentCount - 1) / Self.segmentCount
        let capacity = share + share / 4 + Self.minimumCapacity
        for index in segments.indices where segments[index].slots.count < capacity {
            resize(segment: index, to: capacity)
        }
    }

    /// The seq of `id`, or `nil`; setting `nil` removes it.
    package subscript(id: UUID) -> Int64? {
        get {
            let key = Self.words(id)
            let hash = hash(key)
            let segment = Self.segmentIndex(hash)
            guard let slot = find(key, hash: hash, in: segment).found else { return nil }
            return segments[segment].slots[slot].seq
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the seq of `id`; returns the seq it had, or `nil` if it was absent (one probe for both).
    @discardableResult
    package mutating func updateValue(_ seq: Int64, forKey id: UUID) -> Int64? {
        precondition(seq > 0, "a record's seq is positive")
        let key = Self.words(id)
        let hash = hash(key)
        let segment = Self.segmentIndex(hash)
        var place = find(key, hash: hash, in: segment)
        if let slot = place.found {
            let old = segments[segment].slots[slot].seq
            segments[segment].slots[slot].seq = seq
            return old
        }
        if (segments[segment].count + 1) * 8 > segments[segment].slots.count * 7 {
            let capacity = segments[segment].slots.count
            resize(segment: segment, to: max(Self.minimumCapacity, capacity + capacity / 4))
            place = find(key, hash: hash, in: segment)
        }
        segments[segment].slots[place.empty] = Slot(high: key.high, low: key.low, seq: seq)
        segments[segment].count += 1
        count += 1
        return nil
    }

    /// Removes `id`; returns the seq it had, or `nil` if it was absent.
    @discardableResult
    package mutating func removeValue(forKey id: UUID) -> Int64? {
        let key = Self.words(id)
        let hash = hash(key)
        let segment = Self.segmentIndex(hash)
        guard let found = find(key, hash: hash, in: segment).found else { return nil }
        let old = segments[segment].slots[found].seq
        shiftBack(from: found, in: segment)
        segments[segment].count -= 1
        count -= 1
        return old
    }

    /// Calls `body` with every id and its seq, in no particular order.
    package func forEach(_ body: (UUID, Int64) throws -> Void) rethrows {
        for segment in segments {
            for slot in segment.slots where slot.seq != 0 {
                try body(Self.id(high: slot.high, low: slot.low), slot.seq)
            }
        }
    }

    // MARK: - Probing

    /// Where `key` is (`found`), or the empty slot that ends its probe run (`empty`, meaningful when not found).
    private func find(_ key: (high: UInt64, low: UInt64), hash: UInt64,
                      in segment: Int) -> (found: Int?, empty: Int) {
        let capacity = segments[segment].slots.count
        guard capacity > 0 else { return (nil, 0) }
        return segments[segment].slots.withUnsafeBufferPointer { slots in
            var index = Self.home(hash, capacity: capacity)
            while true {
                let slot = slots[index]
                if slot.seq == 0 { return (nil, index) }
                if slot.high == key.high, slot.low == key.low { return (index, index) }
                index += 1
                if index == capacity { index = 0 }
            }
        }
    }

    /// Empties slot `hole` and moves back each following entry of the run that may sit there (its home is not
    /// between the hole and itself), so every entry stays reachable from its home without tombstones.
    private mutating func shiftBack(from start: Int, in segment: Int) {
        let capacity = segments[segment].slots.count
        var hole = start
        var next = start
        while true {
            next = next + 1 == capacity ? 0 : next + 1
            let slot = segments[segment].slots[next]
            if slot.seq == 0 { break }
            let home = Self.home(hash((slot.high, slot.low)), capacity: capacity)
            // Distances walked forward (wrapping) from the entry's home: it may move to the hole if the hole
            // is no farther from its home than where it sits.
            let fromHomeToHole = (hole - home + capacity) % capacity
            let fromHomeToNext = (next - home + capacity) % capacity
            if fromHomeToHole <= fromHomeToNext {
                segments[segment].slots[hole] = slot
                hole = next
            }
        }
        segments[segment].slots[hole] = .empty
    }

    /// Rehashes one segment into `capacity` slots.
    private mutating func resize(segment: Int, to capacity: Int) {
        let old = segments[segment].slots
        var slots = [Slot](repeating: .empty, count: capacity)
        for slot in old where slot.seq != 0 {
            var index = Self.home(hash((slot.high, slot.low)), capacity: capacity)
            while slots[index].seq != 0 { index = index + 1 == capacity ? 0 : index + 1 }
            slots[index] = slot
        }
        segments[segment].slots = slots
    }

    // MARK: - Hashing

    private func hash(_ key: (high: UInt64, low: UInt64)) -> UInt64 {
        if let testHash { return testHash(key.high, key.low) }
        var hasher = Hasher()
        hasher.combine(key.high)
        hasher.combine(key.low)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    private static func segmentIndex(_ hash: UInt64) -> Int { Int(hash >> UInt64(64 - segmentBits)) }

    /// The home slot: the hash's bits below the segment's, scaled to `capacity` (any capacity, not only powers
    /// of two: the high word of a 64 × 64-bit product).
    private static func home(_ hash: UInt64, capacity: Int) -> Int {
        Int((hash &<< UInt64(segmentBits)).multipliedFullWidth(by: UInt64(capacity)).high)
    }

    static func words(_ id: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: id.uuid) { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    static func id(high: UInt64, low: UInt64) -> UUID {
        UUID(uuid: withUnsafeBytes(of: (high, low)) { $0.loadUnaligned(as: uuid_t.self) })
    }
}
