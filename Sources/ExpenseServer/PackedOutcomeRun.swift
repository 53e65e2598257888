import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// One client's kept outcomes of consecutive mutationIds, packed in bytes: the `outcomes` column of the SQLite
/// store's `outcome_runs` (``SQLiteLedgerStore/migrations``, `SQLiteLedgerStore+Outcomes.swift`).
///
/// One entry per outcome, in mutationId order, and nothing after the last:
/// - `0x00`: applied at version 1 and at the seq after the previous applied entry's (a create: one byte);
/// - `0x01 version delta`: applied; `version` its bit pattern as an unsigned varint, `delta` the seq minus the
///   previous applied entry's seq (0 before the first applied entry of the run) as a zigzag varint, so a seq may
///   go down;
/// - `0x02` and 16 bytes: a conflict, the record's id (``ExpenseCore/UUIDBlob``'s layout);
/// - `0x03 reason message`, `0x04 reason field message`: a rejection without and with a field, each text its
///   UTF-8 length as an unsigned varint and then its bytes.
///
/// Varints are LEB128, at most 10 bytes. A run of creates costs one byte per mutation, the first applied entry
/// of a run (its seq in full) about four.
/// - Important: Decoding never traps: bytes that do not decode into exactly the expected number of entries
///   throw ``LedgerError/storageFailed(_:)`` (the file was changed behind the daemon's back).
package enum PackedOutcomeRun {
    private static let created: UInt8 = 0
    private static let applied: UInt8 = 1
    private static let conflict: UInt8 = 2
    private static let rejected: UInt8 = 3
    private static let rejectedWithField: UInt8 = 4

    /// The bytes of `outcomes`, the outcomes of consecutive mutationIds in order.
    package static func encode(_ outcomes: some Sequence<ConsumedOutcome>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(outcomes.underestimatedCount)
        encode(outcomes, appendingTo: &bytes, previousSeq: 0)
        return bytes
    }

    /// Appends to `bytes`, the packing of a run, the entries of `outcomes` that follow it: the packing of the run
    /// with them, without packing its entries again (``OpenOutcomeRun/committing(_:after:)``).
    /// - Parameter previousSeq: the seq of the run's last applied entry (``lastAppliedSeq(_:)``), which the next
    ///   applied entry's is relative to.
    static func encode(_ outcomes: some Sequence<ConsumedOutcome>, appendingTo bytes: inout [UInt8], previousSeq: Int64) {
        var previousSeq = previousSeq
        for outcome in outcomes {
            switch outcome {
            case .applied(let version, let seq):
                if version == 1 && seq == previousSeq &+ 1 {
                    bytes.append(created)
                } else {
                    bytes.append(applied)
                    appendVarint(UInt64(bitPattern: version), to: &bytes)
                    let delta = seq &- previousSeq
                    appendVarint(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)), to: &bytes)
                }
                previousSeq = seq
            case .conflict(let id):
                bytes.append(conflict)
                withUnsafeBytes(of: id.uuid) { bytes.append(contentsOf: $0) }
            case .rejected(let rejection):
                bytes.append(rejection.field == nil ? rejected : rejectedWithField)
                appendText(rejection.reason, to: &bytes)
                if let field = rejection.field { appendText(field, to: &bytes) }
                appendText(rejection.message, to: &bytes)
            }
        }
    }

    /// The seq of the last applied outcome of `outcomes` (0: none), as ``encode(_:)`` keeps it after them.
    static func lastAppliedSeq(_ outcomes: [ConsumedOutcome]) -> Int64 {
        for outcome in outcomes.reversed() {
            if case .applied(_, let seq) = outcome { return seq }
        }
        return 0
    }

    /// The `count` outcomes packed in `bytes`.
    /// - Throws: ``LedgerError/storageFailed(_:)`` when `bytes` are not exactly `count` entries.
    package static func decode(_ bytes: UnsafeRawBufferPointer, count: Int) throws -> [ConsumedOutcome] {
        var reader = Reader(bytes: bytes)
        var outcomes: [ConsumedOutcome] = []
        outcomes.reserveCapacity(max(0, min(count, bytes.count)))
        var previousSeq: Int64 = 0
        while outcomes.count < count {
            switch try reader.byte() {
            case created:
                previousSeq &+= 1
                outcomes.append(.applied(version: 1, seq: previousSeq))
            case applied:
                let version = Int64(bitPattern: try reader.varint())
                let zigzag = try reader.varint()
                previousSeq &+= Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
                outcomes.append(.applied(version: version, seq: previousSeq))
            case conflict:
                outcomes.append(.conflict(id: try reader.uuid()))
            case rejected:
                let reason = try reader.text()
                outcomes.append(.rejected(MutationRejection(reason: reason, field: nil, message: try reader.text())))
            case rejectedWithField:
                let reason = try reader.text(), field = try reader.text()
                outcomes.append(.rejected(MutationRejection(reason: reason, field: field, message: try reader.text())))
            case let tag:
                throw damaged("unknown entry tag \(tag)")
            }
        }
        guard reader.offset == bytes.count else { throw damaged("\(bytes.count - reader.offset) bytes after its \(count) entries") }
        return outcomes
    }

    /// ``decode(_:count:)`` of an array.
    package static func decode(_ bytes: [UInt8], count: Int) throws -> [ConsumedOutcome] {
        try bytes.withUnsafeBytes { try decode($0, count: count) }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    static func damaged(_ detail: String) -> LedgerError {
        .storageFailed("a kept outcome run does not decode: \(detail)")
    }

    /// Reads entries from the front of the bytes, checking every length against what is left.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw damaged("it ends inside an entry") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 70, by: 7) {
                let byte = try self.byte()
                // The tenth byte holds bit 63 only.
                guard shift < 63 || byte <= 1 else { throw damaged("a varint is longer than 64 bits") }
                value |= UInt64(byte & 0x7f) << UInt64(shift)
                if byte < 0x80 { return value }
            }
            throw damaged("a varint is longer than 10 bytes")
        }

        mutating func uuid() throws -> UUID {
            guard bytes.count - offset >= 16 else { throw damaged("it ends inside an id") }
            defer { offset += 16 }
            guard let id = UUIDBlob.uuid(Array(bytes[offset..<offset + 16])) else { throw damaged("an id is not 16 bytes") }
            return id
        }

        mutating func text() throws -> String {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else { throw damaged("a text runs past its end") }
            let end = offset + Int(length)
            defer { offset = end }
            guard let text = String(validating: bytes[offset..<end], as: UTF8.self) else {
                throw damaged("a text is not UTF-8")
            }
            return text
        }
    }
}
