import ExpenseCore
import Foundation
import Testing
import TestSupport

@Suite("UUIDBlob")
struct UUIDBlobTests {
    private static func ids(_ count: Int, seed: UInt64) -> [UUID] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { raw in
                // Few distinct bytes, so that many ids share long prefixes and ranges end at 0xff and carry.
                for index in 0..<16 { raw[index] = [0x00, 0x0f, 0x10, 0x7f, 0xf0, 0xff].randomElement(using: &generator) ?? 0 }
            }
            return UUID(uuid: bytes)
        }
    }

    @Test("16 bytes in order, back to the same UUID; blobs sort as the lower-case texts do")
    func roundTripAndOrder() throws {
        let ids = Self.ids(500, seed: 3)
        for id in ids {
            let bytes = UUIDBlob.bytes(id)
            #expect(bytes.count == 16)
            #expect(UUIDBlob.uuid(bytes) == id)
            var text = UUIDText.lowercased(id)
            #expect(text.withUTF8 { UUIDBlob.bytes(utf8: $0) } == bytes)
        }
        #expect(ids.map(UUIDBlob.bytes).sorted { $0.lexicographicallyPrecedes($1) }
                == ids.map(UUIDText.lowercased).sorted().compactMap(UUIDText.parse).map(UUIDBlob.bytes))
        #expect(UUIDBlob.uuid(Array(repeating: 0, count: 15)) == nil)
        #expect(UUIDBlob.uuid(Array(repeating: 0, count: 17)) == nil)
        var notAnId = "not-a-uuid"
        #expect(notAnId.withUTF8 { UUIDBlob.bytes(utf8: $0) } == nil)
    }

    /// SQLite compares blobs with memcmp, then by length: what `lexicographicallyPrecedes` does.
    private static func inRange(_ bytes: [UInt8], _ range: (lower: [UInt8], upper: [UInt8])) -> Bool {
        !bytes.lexicographicallyPrecedes(range.lower) && bytes.lexicographicallyPrecedes(range.upper)
    }

    @Test("a prefix's blob range holds exactly the ids whose text starts with it, at every length, in either case")
    func prefixRanges() throws {
        let ids = Self.ids(300, seed: 11)
        let texts = ids.map(UUIDText.lowercased), blobs = ids.map(UUIDBlob.bytes)
        var wrong: [String] = []
        for (index, text) in texts.prefix(80).enumerated() {
            for length in 0...36 {
                var prefix = String(text.prefix(length))
                if index % 2 == 1 { prefix = prefix.uppercased() }
                let range = try #require(UUIDBlob.range(prefix: prefix))
                for (other, blob) in zip(texts, blobs)
                where Self.inRange(blob, range) != other.hasPrefix(prefix.lowercased()) {
                    wrong.append("\(prefix) \(other)")
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        let top = try #require(UUIDBlob.range(prefix: "ffffffff-ffff-ffff-ffff-ffffffffffff"))
        #expect(Self.inRange(Array(repeating: 0xff, count: 16), top))
        #expect(UUIDBlob.range(prefix: "zzzz") == nil)
        #expect(UUIDBlob.range(prefix: "1b0805889") == nil)  // a digit where the hyphen goes
    }
}
