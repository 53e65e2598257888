import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// The compact id → seq map against `Dictionary` on seeded random operation sequences, with the real hash and
/// with hashes that force every id into one probe run (collisions, wrap-around, removal in the middle of a run).
@Suite struct SeqByIdMapTests {
    /// Hashes to run the sequences with: the seeded one, and degenerate ones a test can force.
    enum Hashing: String, CaseIterable, CustomTestStringConvertible {
        case seeded
        /// Every id hashes alike: one segment, one home slot, one probe run holding everything.
        case constant
        /// Every id's home is a segment's last slot: every run wraps around to slot 0.
        case lastSlot
        /// Eight hash values spread over two segments: long runs that interleave.
        case eightValues

        var testDescription: String { rawValue }

        func map() -> SeqByIdMap {
            switch self {
            case .seeded: SeqByIdMap()
            case .constant: SeqByIdMap(testHash: { _, _ in 0 })
            case .lastSlot: SeqByIdMap(testHash: { _, _ in UInt64.max >> UInt64(SeqByIdMap.segmentBits) })
            case .eightValues: SeqByIdMap(testHash: { high, _ in (high & 1) << 63 | (high & 6) << 55 })
            }
        }
    }

    @Test(arguments: Hashing.allCases, [UInt64(1), 2, 3])
    func randomOperationsMatchADictionary(hashing: Hashing, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var map = hashing.map()
        var reference: [UUID: Int64] = [:]
        // A small pool of ids, so updates and removals hit ids that are there; the degenerate hashes keep it
        // smaller (every operation walks the one run).
        let poolSize = hashing == .seeded ? 3_000 : 300
        let pool = (0..<poolSize).map { _ in Self.randomID(&random) }
        var nextSeq: Int64 = 1
        for step in 0..<20_000 {
            let id = pool[Int(random.next() % UInt64(pool.count))]
            switch random.next() % 10 {
            case 0...4:
                let seq = nextSeq
                nextSeq += 1
                #expect(map.updateValue(seq, forKey: id) == reference.updateValue(seq, forKey: id), "step \(step)")
            case 5...6:
                #expect(map.removeValue(forKey: id) == reference.removeValue(forKey: id), "step \(step)")
            case 7:
                let seq: Int64? = random.next() % 2 == 0 ? nil : nextSeq
                nextSeq += 1
                map[id] = seq
                reference[id] = seq
            default:
                #expect(map[id] == reference[id], "step \(step)")
            }
            #expect(map.count == reference.count, "step \(step)")
            if step % 2_000 == 0 { Self.expectSame(map, reference) }
        }
        Self.expectSame(map, reference)
        // Emptied again: every removal found its id after the shifts.
        for id in reference.keys { #expect(map.removeValue(forKey: id) == reference[id]) }
        #expect(map.count == 0)
        for id in pool { #expect(map[id] == nil) }
    }

    @Test(arguments: Hashing.allCases)
    func growthFromEmptyKeepsEveryId(hashing: Hashing) {
        var random = SeededGenerator(seed: 7)
        var map = hashing.map()
        let ids = (0..<(hashing == .seeded ? 50_000 : 1_500)).map { _ in Self.randomID(&random) }
        for (index, id) in ids.enumerated() { #expect(map.updateValue(Int64(index + 1), forKey: id) == nil) }
        #expect(map.count == ids.count)
        for (index, id) in ids.enumerated() where map[id] != Int64(index + 1) {
            Issue.record("id \(index) lost after growth")
            return
        }
    }

    @Test func reservedCapacityHoldsTheIdsWithoutGrowing() {
        var random = SeededGenerator(seed: 11)
        var map = SeqByIdMap()
        map.reserveCapacity(100_000)
        let reserved = map.allocatedBytes
        for seq in 1...100_000 { map.updateValue(Int64(seq), forKey: Self.randomID(&random)) }
        #expect(map.allocatedBytes == reserved)
        #expect(map.count == 100_000)
    }

    /// The point of the map: ~24-byte slots at 7/10 to 7/8 load, where `[UUID: Int64]` held ~48 bytes per id.
    @Test func bytesPerIdStayCompactAtEverySize() {
        var random = SeededGenerator(seed: 5)
        var map = SeqByIdMap()
        var worst = 0.0 // not money: bytes per id
        for seq in 1...200_000 {
            map.updateValue(Int64(seq), forKey: Self.randomID(&random))
            if seq >= 20_000, seq % 1_000 == 0 { worst = max(worst, Double(map.allocatedBytes) / Double(seq)) }
        }
        #expect(worst <= 36, "\(worst) bytes per id")
    }

    @Test func idsRoundTripThroughTheirWords() {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<100 {
            let id = Self.randomID(&random)
            let words = SeqByIdMap.words(id)
            #expect(SeqByIdMap.id(high: words.high, low: words.low) == id)
        }
    }

    static func randomID(_ random: inout SeededGenerator) -> UUID {
        let (high, low) = (random.next(), random.next())
        return SeqByIdMap.id(high: high, low: low)
    }

    static func expectSame(_ map: SeqByIdMap, _ reference: [UUID: Int64]) {
        var seen: [UUID: Int64] = [:]
        map.forEach { id, seq in
            #expect(seen.updateValue(seq, forKey: id) == nil, "id listed twice")
        }
        #expect(seen == reference)
    }
}
