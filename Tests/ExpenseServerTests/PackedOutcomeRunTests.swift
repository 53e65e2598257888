import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// The packed form of a run of kept outcomes (`PackedOutcomeRun.swift`): every outcome comes back as it went in,
/// a run of creates costs a byte each, and damaged bytes throw a storage error instead of trapping.
struct PackedOutcomeRunTests {
    static let runs: [[ConsumedOutcome]] = [
        [],
        [.applied(version: 1, seq: 1)],
        (1...500).map { .applied(version: 1, seq: 1_000_000 + Int64($0)) },
        [.applied(version: 7, seq: 42), .applied(version: 1, seq: 43), .applied(version: 2, seq: 41),   // seq going down
         .applied(version: 1, seq: 1), .applied(version: 1, seq: Int64.max), .applied(version: Int64.max, seq: Int64.min),
         .applied(version: 0, seq: 0), .applied(version: -1, seq: -5), .applied(version: 1, seq: Int64.min + 1)],
        [.conflict(id: UUID()), .conflict(id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))],
        [.rejected(MutationRejection(reason: "invalid_amount", field: "amount", message: "amount must be positive")),
         .rejected(MutationRejection(reason: "mutation_gap", field: nil, message: "mutationId 9 skips ahead")),
         .rejected(MutationRejection(reason: "", field: "", message: "")),
         .rejected(MutationRejection(reason: "invalid_note", field: "note", message: String(repeating: "é漢🙂", count: 3000))),
         .rejected(MutationRejection(reason: "x", field: nil, message: String(repeating: "m", count: 70_000)))],
        [.applied(version: 1, seq: 10), .rejected(MutationRejection(reason: "not_found", field: "id", message: "no expense")),
         .applied(version: 1, seq: 11), .conflict(id: UUID()), .applied(version: 3, seq: 12), .applied(version: 1, seq: 13)],
    ]

    @Test(arguments: runs)
    func everyOutcomeComesBackAsItWentIn(run: [ConsumedOutcome]) throws {
        let bytes = PackedOutcomeRun.encode(run)
        #expect(try PackedOutcomeRun.decode(bytes, count: run.count) == run)
    }

    @Test func aRunOfCreatesCostsAByteEachAfterTheFirst() {
        let creates = (1...500).map { ConsumedOutcome.applied(version: 1, seq: 123_456 + Int64($0)) }
        let bytes = PackedOutcomeRun.encode(creates)
        #expect(bytes.count <= 499 + 5)
        #expect(PackedOutcomeRun.encode([.applied(version: 1, seq: 1)]) == [0])
    }

    /// Every cut of a valid run, every byte after it, and every single byte changed: a `storageFailed` error or
    /// some decoded outcomes, never a trap; a cut or a trailing byte is always an error.
    @Test(arguments: runs.filter { !$0.isEmpty && PackedOutcomeRun.encode($0).count < 4000 })
    func damagedBytesThrowAStorageError(run: [ConsumedOutcome]) throws {
        let bytes = PackedOutcomeRun.encode(run)
        for length in 0..<bytes.count {
            #expect(throws: LedgerError.self) { try PackedOutcomeRun.decode(Array(bytes.prefix(length)), count: run.count) }
        }
        #expect(throws: LedgerError.self) { try PackedOutcomeRun.decode(bytes + [0], count: run.count) }
        #expect(throws: LedgerError.self) { try PackedOutcomeRun.decode(bytes, count: run.count + 1) }
        for index in bytes.indices.prefix(400) {
            for value: UInt8 in [0x00, 0x05, 0x7f, 0x80, 0xff] where value != bytes[index] {
                var damaged = bytes
                damaged[index] = value
                do { _ = try PackedOutcomeRun.decode(damaged, count: run.count) } catch { #expect(error is LedgerError) }
            }
        }
    }

    @Test func malformedEntriesThrow() {
        let cases: [[UInt8]] = [
            [9],                                                    // unknown tag
            [1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0],  // a varint past 64 bits
            [1, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x01, 0],  // longer than 10 bytes
            [3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0],  // a text length past the end
            [3, 2, 0xc3, 0x28, 0],                                  // a text that is not UTF-8
            [2, 1, 2, 3],                                           // a cut id
        ]
        for bytes in cases {
            #expect(throws: LedgerError.self, "\(bytes)") { try PackedOutcomeRun.decode(bytes, count: 1) }
        }
    }

    /// Random bytes decode or throw, for any count.
    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do { _ = try PackedOutcomeRun.decode(bytes, count: Int.random(in: 0..<10, using: &generator)) } catch {
                #expect(error is LedgerError)
            }
        }
    }
}
