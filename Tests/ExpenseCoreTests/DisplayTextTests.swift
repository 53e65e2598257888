import Testing
@testable import ExpenseCore

@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("plain", "plain"), ("a\nb", #"a\nb"#), ("tab\tcr\r", #"tab\tcr\r"#), ("\u{1B}[31mred", #"\u{1B}[31mred"#),
        ("bell\u{7}", #"bell\u{7}"#), ("del\u{7F}", #"del\u{7F}"#), ("csi\u{9B}", #"csi\u{9B}"#),
        ("ls\u{2028}ps\u{2029}", #"ls\u{2028}ps\u{2029}"#), ("café 日本 👩‍👩‍👧", "café 日本 👩‍👩‍👧"), (#"back\slash"#, #"back\slash"#),
    ])
    func controlsAreEscapedAndTheRestKept(text: String, shown: String) {
        #expect(DisplayText.escaped(text) == shown)
        #expect(DisplayText.quoted(text) == "'" + shown + "'")
        #expect(DisplayText.escaped(shown) == shown, "escaping is idempotent")
    }

    /// Bidirectional formatting characters reorder what follows them on a terminal row (an override, an isolate,
    /// a mark): each is escaped, while joiners that build one emoji stay.
    @Test(arguments: ["\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}",
                      "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}"])
    func bidirectionalControlsAreEscaped(control: String) throws {
        let scalar = try #require(control.unicodeScalars.first)
        let code = String(scalar.value, radix: 16, uppercase: true)
        #expect(DisplayText.escaped("ab" + control + "cd") == "ab\\u{\(code)}cd")
        #expect(DisplayText.escapedWhole("ab" + control + "cd") == "ab\\u{\(code)}cd")
        #expect(DisplayText.escapedWhole("👩\u{200D}👩\u{200D}👧") == "👩\u{200D}👩\u{200D}👧")
    }

    @Test func escapedWholeIsNotCut() {
        let long = String(repeating: "x", count: 200) + "\u{1B}"
        #expect(DisplayText.escapedWhole(long) == String(repeating: "x", count: 200) + "\\u{1B}")
    }

    /// The printable-ASCII fast path of ``DisplayText/escaped(_:)`` gives what the grapheme walk gives, at and
    /// around its edges (every byte 0…127 in a text, lengths up to and past the limit).
    @Test func theASCIIFastPathEqualsTheGeneralPath() {
        var texts = ["", "default", "a'b", #"back\slash"#, "~ !", String(repeating: "x", count: DisplayText.limit),
                     String(repeating: "x", count: DisplayText.limit + 1), String(repeating: "é", count: 40)]
        for byte in UInt8(0)...UInt8(127) { texts.append("ledger" + String(decoding: [byte], as: UTF8.self) + "name") }
        for text in texts {
            #expect(DisplayText.escaped(text) == DisplayText.escapedByGrapheme(text), "\(Array(text.utf8))")
        }
    }

    @Test func longTextIsCutAtTheLimitOfScalars() {
        #expect(DisplayText.escaped(String(repeating: "x", count: DisplayText.limit)) == String(repeating: "x", count: DisplayText.limit))
        #expect(DisplayText.escaped(String(repeating: "x", count: 100)) == String(repeating: "x", count: DisplayText.limit) + "…")
        // One grapheme of 600,000 combining accents is still cut: the bound is on scalars.
        let wedge = "e" + String(repeating: "\u{301}", count: 600_000)
        #expect(DisplayText.escaped(wedge).unicodeScalars.count == DisplayText.limit + 1)
        #expect(DisplayText.quoted("x", quote: "\"") == "\"x\"")
    }

    @Test func theCutFallsBetweenGraphemesNeverInsideOne() {
        // A family emoji is five scalars; at the limit it is left out whole, never shown as a lone woman.
        let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        let text = String(repeating: "x", count: DisplayText.limit - 2) + family + "tail"
        #expect(DisplayText.escaped(text) == String(repeating: "x", count: DisplayText.limit - 2) + "…")
        // "é" as e + U+0301 is kept whole or left out whole.
        let accents = String(repeating: "x", count: DisplayText.limit - 1) + "e\u{301}" + "y"
        #expect(DisplayText.escaped(accents) == String(repeating: "x", count: DisplayText.limit - 1) + "…")
    }
}
