import ExpenseCore
import Foundation
import Testing
import TestSupport

@Suite("UUIDText")
struct UUIDTextTests {
    @Test("parses what Foundation parses, in either case, and writes lower case")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { raw in
                for index in 0..<16 { raw[index] = UInt8.random(in: 0...255, using: &generator) }
            }
            let id = UUID(uuid: bytes)
            let text = UUIDText.lowercased(id)
            #expect(text == id.uuidString.lowercased())
            #expect(UUIDText.parse(text) == id)
            #expect(UUIDText.parse(id.uuidString) == id)
            #expect(UUID(uuidString: text) == UUIDText.parse(text))
        }
    }

    /// Foundation's parser goes through `sscanf`/`strtoul`, which also let through a leading space, a sign or
    /// `0x` inside a group (" ba7b810-…" became 0ba7b810-…): an id the client would never see written back as
    /// it sent it. Those are refused here, as Protocol.md's 8-4-4-4-12 hexadecimal digits say.
    @Test("refuses everything that is not 8-4-4-4-12 hexadecimal digits", arguments: [
        "", "6ba7b810-9dad-11d1-80b4-00c04fd430c", "6ba7b810-9dad-11d1-80b4-00c04fd430c88",
        "6ba7b8109dad-11d1-80b4-00c04fd430c8a", "6ba7b810-9dad-11d1-80b4_00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-00c04fd430cg", "g6ba7b81-9dad-11d1-80b4-00c04fd430c8",
        " ba7b810-9dad-11d1-80b4-00c04fd430c8", "+ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c\u{0}", "6ba7b810-9dad-11d1-80b4-00c04fd430é",
        "{ba7b810-9dad-11d1-80b4-00c04fd430c8}", "6ba7b810-+dad-11d1-80b4-00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-0xc04fd430c8",
    ])
    func refusals(text: String) {
        #expect(UUIDText.parse(text) == nil)
    }

    /// The parser reads the digits into two 64-bit halves with one check at the end; the reference below is the
    /// byte-by-byte parser it replaced. Every byte value at every offset of a valid id gives the same answer.
    @Test("every byte at every offset: the same answer as the byte-by-byte parser")
    func everyByteAtEveryOffset() {
        func reference(_ text: [UInt8]) -> UUID? {
            guard text.count == 36 else { return nil }
            func hex(_ byte: UInt8) -> UInt8? {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
                default: nil
                }
            }
            var raw = [UInt8](repeating: 0, count: 16)
            var offset = 0
            for index in 0..<16 {
                if [4, 6, 8, 10].contains(index) {
                    guard text[offset] == UInt8(ascii: "-") else { return nil }
                    offset += 1
                }
                guard let high = hex(text[offset]), let low = hex(text[offset + 1]) else { return nil }
                raw[index] = high << 4 | low
                offset += 2
            }
            return UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10],
                               raw[11], raw[12], raw[13], raw[14], raw[15]))
        }
        let valid = Array("6Ba7b810-9dad-11d1-80b4-00c04fd430c8".utf8)
        for offset in 0..<36 {
            for byte in UInt8.min...UInt8.max {
                var text = valid
                text[offset] = byte
                let parsed = text.withUnsafeBufferPointer { UUIDText.parse(utf8: $0) }
                #expect(parsed == reference(text), "byte \(byte) at \(offset)")
            }
        }
    }

    @Test("mixed case is accepted")
    func mixedCase() {
        #expect(UUIDText.parse("6BA7B810-9dAd-11D1-80b4-00C04FD430C8") == UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
    }

    @Test("validateID uses it: a bad id is invalid_id")
    func validator() throws {
        #expect(try ExpenseValidator.validateID("6BA7B810-9DAD-11D1-80B4-00C04FD430C8")
            == UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(throws: ValidationError.self) { try ExpenseValidator.validateID("6ba7b810-9dad-11d1-80b4-00c04fd430c") }
    }
}
