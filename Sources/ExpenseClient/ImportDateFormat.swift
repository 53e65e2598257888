import ExpenseCore

/// A date format of a bank export, such as `DD.MM.YYYY`: `YYYY` (four digits), `MM` and `DD` (one or two
/// digits) once each; every other character must appear as written. The day read is then checked by the
/// core's validator like any other date.
package struct ImportDateFormat: Hashable, Sendable {
    private enum Piece: Hashable, Sendable { case year, month, day, literal(Character) }
    private let pieces: [Piece]
    /// The format as given.
    package let text: String

    /// - Throws: ``ImportOptionError/badDateFormat(_:)``.
    package init(_ text: String) throws(ImportOptionError) {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let first = rest.first {
            if rest.hasPrefix("YYYY") { pieces.append(.year); rest = rest.dropFirst(4) }
            else if rest.hasPrefix("MM") { pieces.append(.month); rest = rest.dropFirst(2) }
            else if rest.hasPrefix("DD") { pieces.append(.day); rest = rest.dropFirst(2) }
            else if first.isLetter || first.isNumber { throw .badDateFormat(text) }
            else { pieces.append(.literal(first)); rest = rest.dropFirst() }
        }
        for piece in [Piece.year, .month, .day] where pieces.count(where: { $0 == piece }) != 1 {
            throw .badDateFormat(text)
        }
        self.pieces = pieces
        self.text = text
    }

    /// `value` rewritten as `YYYY-MM-DD`, or `nil` when it does not follow the format.
    package func isoText(_ value: String) -> String? {
        var rest = Substring(value.trimmingSpacesAndTabs)
        var year = "", month = "", day = ""
        func digits(_ range: ClosedRange<Int>) -> String? {
            let taken = rest.prefix { $0.isASCII && $0.isNumber }.prefix(range.upperBound)
            guard range.contains(taken.count) else { return nil }
            rest = rest.dropFirst(taken.count)
            return String(taken)
        }
        for piece in pieces {
            switch piece {
            case .year: guard let value = digits(4...4) else { return nil }; year = value
            case .month: guard let value = digits(1...2) else { return nil }; month = value
            case .day: guard let value = digits(1...2) else { return nil }; day = value
            case .literal(let character):
                guard rest.first == character else { return nil }
                rest = rest.dropFirst()
            }
        }
        guard rest.isEmpty else { return nil }
        func padded(_ text: String) -> String { text.count == 1 ? "0" + text : text }
        return "\(year)-\(padded(month))-\(padded(day))"
    }
}
