import FoundationEssentials

/// One payment in several categories: the parts of an expense's amount that belong to categories other than its
/// own. The expense's own category takes the remainder, `amount − sum of parts`, which is always at least one
/// minor unit: a zero remainder is refused, so the expense's own category always holds some of it (and the
/// expense is counted there, ``Expense/categoryShares``), and an expense wholly in another category is written
/// with that category instead.
///
/// - Important: ``parts`` number 1 to ``maximumParts``; each amount is 1 … ``ExpenseRules/maximumAmount`` minor
///   units of the expense's currency; each category is a valid category as it is stored (trimmed,
///   ``ExpenseValidator/validateCategory(_:)``), none repeated (compared as bytes, ``ExactText``). Every
///   initialiser checks this; what depends on the expense (its own category, the amount the parts must stay
///   below) is checked by ``validate(amount:currency:category:)``.
public struct ExpenseParts: Hashable, Sendable {
    /// One category's part of the amount.
    public struct Part: Hashable, Sendable {
        /// The category, stored as a category is (trimmed).
        public let category: String
        /// In minor units of the expense's currency, at least 1.
        public let amount: Int64

        /// A part; checked by the ``ExpenseParts`` that holds it.
        public init(category: String, amount: Int64) {
            self.category = category
            self.amount = amount
        }

        /// Equal when the amounts are and the categories have the same bytes (``ExactText``).
        public static func == (lhs: Part, rhs: Part) -> Bool {
            lhs.amount == rhs.amount && ExactText.same(lhs.category, rhs.category)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(amount)
            ExactText.hash(category, into: &hasher)
        }
    }

    /// The most parts one expense may have.
    public static let maximumParts = 16

    /// In the order they were given (the order they are shown in and divided by).
    public let parts: [Part]

    /// Checks every rule that does not depend on the expense.
    /// - Throws: ``ValidationError/invalidParts(_:)``.
    public init(_ parts: [Part]) throws {
        guard !parts.isEmpty else { throw ValidationError.invalidParts("give at least one part, or none at all") }
        guard parts.count <= Self.maximumParts else {
            throw ValidationError.invalidParts("\(parts.count) parts: an expense has at most \(Self.maximumParts)")
        }
        var checked: [Part] = []
        for part in parts {
            let category: String
            do {
                category = try ExpenseValidator.validateCategory(part.category)
            } catch let error as ValidationError {
                throw ValidationError.invalidParts("a part's category: \(error.message)")
            }
            guard (1...ExpenseRules.maximumAmount).contains(part.amount) else {
                throw ValidationError.invalidParts("the part \(DisplayText.quoted(category)) must be 1 to "
                                                   + "\(ExpenseRules.maximumAmount) minor units, not \(part.amount)")
            }
            guard !checked.contains(where: { ExactText.same($0.category, category) }) else {
                throw ValidationError.invalidParts("the category \(DisplayText.quoted(category)) has two parts")
            }
            checked.append(Part(category: category, amount: part.amount))
        }
        self.parts = checked
    }

    /// Parts derived from checked ones (a converted amount or a member's share divided, ``Expense``): the same
    /// categories, amounts that may leave a remainder of 0. Only for totals; never validated nor stored.
    package init(unchecked parts: [Part]) {
        self.parts = parts
    }

    /// Parts from their stored and sent text (``text``): one line per part, `MINOR_UNITS:CATEGORY`, the lines
    /// joined by a newline. A category holds no control character, so neither a newline nor the first colon of
    /// a line is ever part of one; the amount is canonical (digits, no leading zero).
    /// - Throws: ``ValidationError/invalidParts(_:)``.
    public init(text: String) throws {
        var parts: [Part] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":"), let amount = Int64(line[..<colon]),
                  String(amount) == line[..<colon] else {
                throw ValidationError.invalidParts("\(DisplayText.quoted(String(line))) is not MINOR_UNITS:CATEGORY")
            }
            let category = String(line[line.index(after: colon)...])
            parts.append(Part(category: category, amount: amount))
        }
        try self.init(parts)
        // Canonical: what was read is what is written back, so two texts are the same parts exactly when their
        // bytes are (the field's sameness).
        guard ExactText.same(self.text, text) else {
            throw ValidationError.invalidParts("the parts are not written as stored: categories trimmed, one per line")
        }
    }

    /// Parts as a person types them, each `CATEGORY=AMOUNT` (`household=12.30`), the amount in `currency`'s
    /// minor units (``Money/parse(_:currency:)``); the last `=` ends the category, so a category may hold `=`.
    /// - Throws: ``ValidationError/invalidParts(_:)``.
    public init(typed: [String], currency: Currency) throws {
        var parts: [Part] = []
        for piece in typed {
            guard let equals = piece.lastIndex(of: "=") else {
                throw ValidationError.invalidParts("\(DisplayText.quoted(piece)) is not CATEGORY=AMOUNT")
            }
            let amountText = String(piece[piece.index(after: equals)...]).trimmingWhitespace
            let amount: Int64
            do {
                amount = try Money.parse(amountText, currency: currency)
            } catch let error as ValidationError {
                throw ValidationError.invalidParts("the part \(DisplayText.quoted(piece)): \(error.message)")
            }
            parts.append(Part(category: String(piece[..<equals]), amount: amount))
        }
        try self.init(parts)
    }

    /// Parts as ``typedText(currency:)`` writes them, `household=12.30;pharmacy=9.90` (an export's `parts` cell).
    /// A `;` that does not follow an amount is part of a category, so a category may hold one.
    /// - Throws: ``ValidationError/invalidParts(_:)``.
    public init(typedList text: String, currency: Currency) throws {
        var typed: [String] = []
        var pending: String?
        for piece in text.split(separator: ";", omittingEmptySubsequences: false) {
            let candidate = pending.map { $0 + ";" + piece } ?? String(piece)
            if let equals = candidate.lastIndex(of: "="),
               (try? Money.parse(String(candidate[candidate.index(after: equals)...]).trimmingWhitespace, currency: currency)) != nil {
                typed.append(candidate)
                pending = nil
            } else {
                pending = candidate
            }
        }
        if let pending { typed.append(pending) }  // refused by init(typed:), naming it
        try self.init(typed: typed, currency: currency)
    }

    /// The stored and sent text (``init(text:)``).
    public var text: String {
        parts.map { "\($0.amount):\($0.category)" }.joined(separator: "\n")
    }

    /// As a person types them, `household=12.30;pharmacy=9.90` (`list`, `export`, conflicts).
    public func typedText(currency: Currency) -> String {
        parts.map { "\($0.category)=\(Money.format($0.amount, currency: currency))" }.joined(separator: ";")
    }

    /// The parts' sum, at most 16 × 2^53 (no overflow).
    public var sum: Int64 { parts.reduce(0) { $0 + $1.amount } }

    /// Checks the parts against their expense: none names its own `category` (by bytes), and they add up to
    /// less than `amount`, leaving its own category at least one minor unit.
    /// - Throws: ``ValidationError/invalidParts(_:)``, saying by how much the parts miss.
    public func validate(amount: Int64, currency: Currency, category: String) throws {
        if let own = parts.first(where: { ExactText.same($0.category, category) }) {
            throw ValidationError.invalidParts("a part names the expense's own category \(DisplayText.quoted(own.category)), "
                                               + "which takes the remainder")
        }
        let sum = self.sum
        guard sum < amount else {
            let over = sum - amount + 1
            throw ValidationError.invalidParts(
                "the parts add up to \(Money.format(sum, currency: currency, includeCode: true)) of "
                    + "\(Money.format(amount, currency: currency, includeCode: true)), "
                    + "\(Money.format(over, currency: currency, includeCode: true)) too much: "
                    + "\(DisplayText.quoted(category)) keeps the rest, at least \(Money.format(1, currency: currency, includeCode: true))")
        }
    }

    /// `amount` (the expense's amount converted, or one member's share of it) divided among the expense's own
    /// category and its parts in proportion to the remainder and the parts' amounts, by the exact
    /// largest-remainder rule of splits (``ProportionalDivision``, rotated by the expense's id): the remainder's
    /// amount first, then one per part in order. They add up to `amount` exactly.
    /// - Parameter whole: the expense's own amount, whose remainder is `whole − sum`.
    /// - Returns: `nil` when `amount` is out of range (negative or above ``ExpenseRules/maximumAmount``).
    public func divided(_ amount: Int64, whole: Int64, expenseId: UUID) -> [Int64]? {
        guard amount <= ExpenseRules.maximumAmount else { return nil }
        return ProportionalDivision.divide(amount, weights: [whole - sum] + parts.map(\.amount), rotation: expenseId)
    }
}
