/// The one way to show text that someone else supplied (a field value, a JSON key, a ledger or client name)
/// inside a message for a person or a line of the daemon's log.
///
/// - Important: the result never holds a control character or a line break, so a message never restyles a
///   terminal (an escape sequence, a bell) and a log line stays one line per event; and it is bounded (at most
///   ``limit`` Unicode scalars of the text are shown), so a message never grows with its input.
///
/// A backslash is kept as it is: the escapes exist to keep a message on one line and a terminal unstyled, not to
/// make the text recoverable from it. Escaping is therefore idempotent (already-shown text is shown unchanged).
public enum DisplayText {
    /// How many Unicode scalars of a text are shown at most (a ledger name, at most 64, is shown whole).
    public static let limit = 64

    /// `text` safe for one line: control characters (C0, DEL, C1), line or paragraph separators and bidirectional
    /// formatting characters (embeddings, overrides, isolates, marks: they reorder the rest of a terminal row) are
    /// written as `\n`, `\r`, `\t` or `\u{1B}`; joiners, which build one emoji of several, stay; past ``limit``
    /// Unicode scalars it is cut and `…` is appended.
    ///
    /// The cut falls between two graphemes (characters as a person sees them), never inside one: a family emoji or
    /// an accented letter is shown whole or left out whole. Only a first grapheme longer than the limit by itself
    /// (a wedge of combining marks) is cut between its scalars, so that something of it shows.
    public static func escaped(_ text: String) -> String {
        // Printable ASCII within the limit is shown as it is (each byte one scalar and one grapheme, none escaped):
        // the common case (a ledger name in the daemon's per-push log line), without walking graphemes.
        // DisplayTextTests compares it with the general path below.
        if text.utf8.count <= limit, text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        return escapedByGrapheme(text)
    }

    /// ``escaped(_:)`` for any text, grapheme by grapheme (internal for the test against the fast path).
    static func escapedByGrapheme(_ text: String) -> String {
        var shown = ""
        var count = 0
        for character in text {
            let scalars = character.unicodeScalars
            if count + scalars.count > limit {
                if count == 0 { for scalar in scalars.prefix(limit) { shown += escape(scalar) } }
                return shown + "…"
            }
            count += scalars.count
            for scalar in scalars { shown += escape(scalar) }
        }
        return shown
    }

    /// `text` with every character ``escaped(_:)`` escapes written the same way, but whole: for a terminal cell
    /// that is cut to its column width by the caller (`expense list`'s table), not to ``limit`` scalars.
    public static func escapedWhole(_ text: String) -> String {
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        var shown = ""
        for scalar in text.unicodeScalars { shown += escape(scalar) }
        return shown
    }

    /// ``escaped(_:)`` between `quote`s: `'text'` by default.
    public static func quoted(_ text: String, quote: Character = "'") -> String {
        "\(quote)\(escaped(text))\(quote)"
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            return isHidden(scalar) ? "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}" : String(scalar)
        }
    }

    /// Whether `scalar` is one ``escaped(_:)`` never shows as it is: a control character (C0, DEL, C1), a line or
    /// paragraph separator, or a bidirectional formatting character. Other writers of someone else's text (the
    /// journal export) keep such characters out by this same rule.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: isBidirectionalControl(scalar)
        default: false
        }
    }

    /// The Unicode characters that change the direction of the text after them (UAX #9): ALM, LRM, RLM, the
    /// embeddings and overrides LRE…RLO, and the isolates LRI…PDI.
    private static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
