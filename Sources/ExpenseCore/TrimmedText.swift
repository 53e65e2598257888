extension StringProtocol {
    /// The text without the whitespace and line breaks at either end: the scalars with Unicode's White_Space
    /// property and U+200B ZERO WIDTH SPACE, which is what Foundation's `CharacterSet.whitespacesAndNewlines`
    /// holds (the texts stored before the daemon linked no Foundation were trimmed with it).
    public var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !Self.isTrimmed($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    private static func isTrimmed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{200B}"
    }
}
