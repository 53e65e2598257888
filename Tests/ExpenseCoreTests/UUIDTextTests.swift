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
