/// How many terminal columns text takes: East Asian wide and fullwidth characters (CJK, Hangul, kana,
/// fullwidth forms) and emoji shown as emoji take two, combining marks and other zero-width scalars none,
/// everything else one. Measured per grapheme cluster, so a flag or a family emoji counts once.
enum TerminalWidth {
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: isWide) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        if scalars.contains("\u{FE0F}"), first.properties.isEmoji { return 2 }  // text emoji asked to show as emoji
        if scalars.allSatisfy(isZeroWidth) { return 0 }
        return 1
    }

    /// Text cut to at most `width` columns, ending in "…" when cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// `text` followed by spaces up to `width` columns.
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: return false
        }
    }

    /// East Asian Width W or F (Unicode's EastAsianWidth.txt, the main blocks).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
