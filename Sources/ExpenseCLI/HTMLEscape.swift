/// The one function through which every text from the ledger (categories, notes, labels, amounts as written
/// by a locale) reaches the HTML report.
package enum HTMLEscape {
    /// `text` safe as HTML element content and as a quoted attribute value:
    /// - `&`, `<`, `>`, `"` and `'` become character references, so no text opens a tag, ends an attribute
    ///   or starts an entity;
    /// - characters that could restyle what follows or hide what is written become a visible `⟨U+XXXX⟩`: the
    ///   bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), other C0 and C1 controls
    ///   but tab and newline (NUL included), the line and paragraph separators, the noncharacters U+FFFE and
    ///   U+FFFF, and U+FEFF;
    /// - everything else, emoji and combining marks included, is kept byte for byte (a Swift `String` is always
    ///   valid Unicode: bytes that were not UTF-8 reached it as U+FFFD, which is kept).
    /// Callers put ledger text inside `<bdi>` as well, so a right-to-left category cannot reorder its neighbours.
    package static func text(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            default:
                if isHidden(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "⟨U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "⟩"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        case 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: true
        default: false
        }
    }
}
