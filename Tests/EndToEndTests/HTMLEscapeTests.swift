import ExpenseCLI
import Testing

/// The one escaping function of the HTML report, with hostile category and note text.
struct HTMLEscapeTests {
    @Test("markup, quotes and ampersands cannot open a tag, end an attribute or start an entity", arguments: [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='x", "&amp; &lt; &#x3C;",
        "</bdi></td></tr></table><h1>", "<!-- -->", "<![CDATA[x]]>", "a&b<c>d\"e'f",
    ])
    func markup(text: String) {
        let escaped = HTMLEscape.text(text)
        #expect(!escaped.contains("<") && !escaped.contains(">") && !escaped.contains("\"") && !escaped.contains("'"))
        // Every & left starts one of our five references.
        var rest = Substring(escaped)
        while let index = rest.firstIndex(of: "&") {
            let tail = rest[index...]
            #expect(["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains { tail.hasPrefix($0) }, "\(escaped)")
            rest = rest[rest.index(after: index)...]
        }
    }

    @Test func exactForms() {
        #expect(HTMLEscape.text("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&#39;f")
        #expect(HTMLEscape.text("café cafe\u{301} 🍕 名前 \u{FFFD}") == "café cafe\u{301} 🍕 名前 \u{FFFD}")
        #expect(HTMLEscape.text("tab\tnew\nline") == "tab\tnew\nline")
    }

    @Test("bidi controls, other controls and invisible separators become visible", arguments: [
        ("\u{202E}evil", "⟨U+202E⟩evil"), ("a\u{2066}b\u{2069}", "a⟨U+2066⟩b⟨U+2069⟩"), ("\u{200F}\u{200E}\u{061C}", "⟨U+200F⟩⟨U+200E⟩⟨U+061C⟩"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", "⟨U+202A⟩⟨U+202B⟩⟨U+202C⟩⟨U+202D⟩"), ("nul\u{0}", "nul⟨U+0000⟩"),
        ("\u{1B}[31m", "⟨U+001B⟩[31m"), ("\u{85}\u{2028}\u{2029}", "⟨U+0085⟩⟨U+2028⟩⟨U+2029⟩"),
        ("\u{FEFF}\u{FFFE}\u{FFFF}", "⟨U+FEFF⟩⟨U+FFFE⟩⟨U+FFFF⟩"), ("\r", "⟨U+000D⟩"),
    ])
    func hidden(text: String, expected: String) {
        #expect(HTMLEscape.text(text) == expected)
    }

    @Test func invalidUTF8ArrivesAsReplacementCharacters() {
        let decoded = String(decoding: [0x66, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80], as: UTF8.self)
        let escaped = HTMLEscape.text(decoded)
        #expect(escaped.hasPrefix("f\u{FFFD}"))
        #expect(!escaped.contains("<"))
    }
}
