import ExpenseCore

/// Amounts as bank exports write them (`--map` or `--decimal-comma`), turned into the plain decimal text that
/// ``ExpenseCore/Money/parse(_:currency:)`` reads exactly — never through floating point.
///
/// The rules, in order:
/// 1. Leading and trailing spaces are ignored.
/// 2. One sign may come first: `+` is dropped; `-` or `−` (U+2212) means a refund, refused (refunds do not
///    exist yet) with a message saying so.
/// 3. The decimal mark is `.` (or `,` with `--decimal-comma`); the other of the two, a space, a no-break space
///    (U+00A0, U+202F) or `'` groups thousands: every group after the first has exactly three digits, and
///    grouping is only allowed before the decimal mark. So `1.234,56` (decimal comma) and `1,234.56` are
///    123456 cents, while `12,50` without `--decimal-comma` is refused rather than read as 1250.
/// 4. What remains goes through `Money.parse`: at most the currency's decimal places, 1 … 2^53−1 minor units.
package enum ImportAmount {
    /// The amount in minor units.
    /// - Throws: ``ExpenseCore/ValidationError/invalidAmount(_:)`` naming the rule broken.
    package static func parse(_ text: String, currency: Currency, decimalComma: Bool) throws -> Int64 {
        var body = Substring(text.trimmingSpacesAndTabs)
        let shown = DisplayText.quoted(text)
        if let first = body.first, first == "-" || first == "\u{2212}" {
            throw ValidationError.invalidAmount("\(shown) is negative: a refund, which cannot be imported yet (leave the row out)")
        }
        if body.first == "+" { body = body.dropFirst() }
        let mark: Character = decimalComma ? "," : "."
        let groupMarks: Set<Character> = [decimalComma ? "." : ",", " ", "\u{00A0}", "\u{202F}", "'"]
        let parts = body.split(separator: mark, maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        if parts.count == 2, parts[1].contains(where: { groupMarks.contains($0) || $0 == mark }) {
            throw ValidationError.invalidAmount("\(shown) has a separator after its decimal mark '\(mark)'"
                + (decimalComma ? "" : "; if the file writes 12,50 for twelve and a half, give --decimal-comma"))
        }
        let groups = whole.split(omittingEmptySubsequences: false) { groupMarks.contains($0) }
        if groups.count > 1 {
            guard (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                throw ValidationError.invalidAmount("\(shown) groups its digits wrongly (thousands are groups of three)"
                    + (decimalComma ? "" : "; if the file writes 12,50 for twelve and a half, give --decimal-comma"))
            }
        }
        let plain = groups.joined() + (parts.count == 2 ? "." + parts[1] : "")
        return try Money.parse(plain, currency: currency)
    }
}
