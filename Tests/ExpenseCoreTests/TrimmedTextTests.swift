import ExpenseCore
import Foundation
import Testing

/// `trimmingWhitespace` is the one trimming rule (names, categories, notes, option lists). The daemon links no
/// Foundation, so the rule is written here; it must trim exactly what Foundation's
/// `trimmingCharacters(in: .whitespacesAndNewlines)` trims, which the stored data was trimmed with.
@Suite("TrimmedText")
struct TrimmedTextTests {
    @Test("every scalar, at both ends and between text, is trimmed as Foundation trims it")
    func everyScalarAsFoundation() {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates are no scalars
            let alone = String(Character(scalar))
            for text in [alone + "a" + alone, "a" + alone + "b"] {
                if text.trimmingWhitespace != text.trimmingCharacters(in: .whitespacesAndNewlines) {
                    differing.append(String(value, radix: 16))
                }
            }
        }
        #expect(differing.isEmpty, "trimmed differently from Foundation: U+\(differing.prefix(20))")
    }

    @Test("texts of several scalars, substrings and the empty text")
    func textsAndSubstrings() {
        #expect("".trimmingWhitespace == "")
        #expect(" \t\n\u{A0}\u{3000}".trimmingWhitespace == "")
        #expect("\u{2028} lunch  with\u{A0}Ann \r\n".trimmingWhitespace == "lunch  with\u{A0}Ann")
        let line = "  food , travel  "
        #expect(line.split(separator: ",").map(\.trimmingWhitespace) == ["food", "travel"])
        #expect("e\u{301} ".trimmingWhitespace == "e\u{301}")
        #expect("\u{200B}\u{200B}".trimmingWhitespace == "")
    }
}
