import ExpenseCore
import Foundation

extension JournalExport {
    /// What Beancount's input language allows, and how someone else's text is made to fit.
    ///
    /// An account is a root type (`Assets`, `Liabilities`, `Equity`, `Income`, `Expenses`) and components joined by
    /// `:`; a component starts with an upper-case letter or a digit and holds only letters, digits and `-`
    /// (`[\p{Lu}\p{Nd}][\p{L}\p{Nd}-]*`, beancount.core.account; v3 accepts letters of any script). So a component
    /// is made from the text in NFC (an accented letter is one letter) by keeping its letters and digits, in words
    /// joined by `-` wherever anything else stood (`food & drink` → `food-drink`), dropping combining marks, and
    /// upper-casing the first letter (`Food-drink`); a word that cannot start one (a letter without case, such as
    /// Arabic or Hebrew) gets `X-` before it, and nothing left at all is `X`. Emoji, which are not letters, are
    /// left out. A string is double-quoted with `\"` and `\\`; every control character, line or paragraph
    /// separator and bidirectional formatting character (``ExpenseCore/DisplayText/isHidden(_:)``) becomes a space,
    /// so no string holds a raw line break.
    package enum Beancount {
        /// The root types an account may start with (the default `name_*` options).
        package static let rootTypes = ["Assets", "Liabilities", "Equity", "Income", "Expenses"]

        /// An account component made of `text` (see the type's summary).
        package static func component(_ text: String) -> String {
            var words: [String.UnicodeScalarView] = [String.UnicodeScalarView()]
            for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars {
                if isWordScalar(scalar) {
                    words[words.count - 1].append(scalar)
                } else if !isMark(scalar), !(words.last?.isEmpty ?? true) {
                    words.append(String.UnicodeScalarView())
                }
            }
            let joined = words.filter { !$0.isEmpty }.map(String.init).joined(separator: "-")
            guard let first = joined.first else { return "X" }
            let capitalised = first.uppercased() + joined.dropFirst()
            return capitalised.unicodeScalars.first.map(canStart) == true ? capitalised : "X-" + joined
        }

        /// `text` as a double-quoted string (see the type's summary).
        package static func string(_ text: String) -> String {
            var quoted = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": quoted += "\\\""
                case "\\": quoted += "\\\\"
                default: quoted.unicodeScalars.append(DisplayText.isHidden(scalar) ? " " : scalar)
                }
            }
            return quoted + "\""
        }

        /// Why `name` cannot be an account (an `--expenses-account` or `--assets-account`), or `nil` when it can.
        /// - Parameter posted: postings go to the account itself, which therefore needs a component below its root.
        package static func refusal(account name: String, posted: Bool) -> String? {
            let parts = name.split(separator: ":", omittingEmptySubsequences: false)
            guard let root = parts.first, rootTypes.contains(where: { ExactText.same($0, String(root)) }) else {
                return "it must start with Assets, Liabilities, Equity, Income or Expenses"
            }
            if posted, parts.count < 2 { return "postings need an account below the root, such as \(root):Cash" }
            for part in parts.dropFirst() {
                guard let first = part.unicodeScalars.first, canStart(first),
                      part.unicodeScalars.allSatisfy({ isWordScalar($0) || $0 == "-" }) else {
                    return "each part after the root must start with an upper-case letter or a digit and hold only "
                        + "letters, digits and -, not \(DisplayText.quoted(String(part)))"
                }
            }
            return nil
        }

        /// A letter or a decimal digit (ASCII ones, and any script's).
        private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: true
            default: false
            }
        }

        /// What may start a component: an upper-case letter or a decimal digit.
        private static func canStart(_ scalar: Unicode.Scalar) -> Bool {
            [.uppercaseLetter, .decimalNumber].contains(scalar.properties.generalCategory)
        }

        /// A combining mark, left out without ending the word it belongs to.
        private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
            [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory)
        }
    }

    /// The journal in Beancount's language, in pieces handed to `emit`: an `open` for every account used, dated on
    /// the first day of the file; the price directives; then one transaction per record (`DATE * "NARRATION"`,
    /// its id as the metadata `id`, then its postings, each amount with its currency's minor-unit digits and the
    /// code after it), a blank line between them. Nothing at all when there is nothing to write.
    ///
    /// ```
    /// 2026-12-04 open Assets:Cash
    /// 2026-12-04 open Expenses:Food
    ///
    /// 2026-12-04 * "Lunch with the team"
    ///   id: "0b0e9c36-58d1-4c83-a0f5-6fd2d6b6c2a1"
    ///   Expenses:Food  12.50 USD
    ///   Assets:Cash  -12.50 USD
    /// ```
    package func writeBeancount(names: JournalAccountNames, _ emit: (String) throws -> Void) rethrows {
        guard let firstDay else { return }
        let opened = accounts.map(names.name).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // A blank line between two sections, never before the first.
        var separator = ""
        if !opened.isEmpty {
            try emit(opened.map { "\(firstDay) open \($0)\n" }.joined())
            separator = "\n"
        }
        if !prices.isEmpty {
            try emit(separator + prices.map { "\($0.date) price \($0.from.code) \($0.rate) \($0.to.code)\n" }.joined())
            separator = "\n"
        }
        for transaction in transactions {
            var text = "\(transaction.date) * \(Beancount.string(transaction.description))\n"
            text += "  id: \"\(UUIDText.lowercased(transaction.id))\"\n"
            for posting in transaction.postings {
                text += "  \(names.name(posting.account))  \(Self.amount(posting))\n"
            }
            try emit(separator + text)
            separator = "\n"
        }
    }
}
