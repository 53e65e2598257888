import ExpenseCore

extension JournalExport {
    /// What hledger's journal (and Ledger's, which reads the same file) allows, and how someone else's text is
    /// made to fit.
    ///
    /// An account name ends at two spaces or a tab, `;` starts a comment, `:` separates components, and a posting
    /// whose account starts with `(` or `[` is virtual (with `*` or `!` it is a status). A description ends at `;`,
    /// and one starting with `(` would be read as a transaction code. So: every control character (C0, DEL, C1),
    /// line or paragraph separator and bidirectional formatting character (``ExpenseCore/DisplayText/isHidden(_:)``)
    /// and every white space become one space, runs of spaces one space, and the ends are trimmed; `;` becomes `,`;
    /// in an account component `:` becomes `-`. Everything else, emoji and right-to-left text included, is kept.
    package enum Hledger {
        /// An account component made of `text` (see the type's summary); `_` when nothing is left.
        package static func component(_ text: String) -> String {
            let cleaned = oneLine(text, colon: "-")
            return cleaned.isEmpty ? "_" : cleaned
        }

        /// A transaction's description made of `text` (see the type's summary); may be empty.
        package static func description(_ text: String) -> String {
            oneLine(text, colon: ":")
        }

        /// Why `name` cannot be an account (an `--expenses-account` or `--assets-account`), or `nil` when it can.
        package static func refusal(account name: String) -> String? {
            if name.isEmpty { return "it is empty" }
            if name.unicodeScalars.contains(where: { DisplayText.isHidden($0) || ($0.properties.isWhitespace && $0 != " ") }) {
                return "it holds a control character or white space other than a space"
            }
            if name.contains(";") { return "it holds ;, which starts a comment" }
            if name.contains("  ") { return "it holds two spaces in a row, which end an account name" }
            if let first = name.unicodeScalars.first, "([*!".unicodeScalars.contains(first) {
                return "it starts with \(first), which marks a virtual posting or a status"
            }
            for part in name.split(separator: ":", omittingEmptySubsequences: false) {
                if part.isEmpty { return "it has an empty part (a : at an end or two in a row)" }
                if part.hasPrefix(" ") || part.hasSuffix(" ") { return "a part starts or ends with a space" }
            }
            return nil
        }

        /// `text` on one line with single spaces, trimmed, `;` as `,` and `:` as `colon`.
        private static func oneLine(_ text: String, colon: Unicode.Scalar) -> String {
            var scalars = String.UnicodeScalarView()
            var pendingSpace = false
            for scalar in text.unicodeScalars {
                if DisplayText.isHidden(scalar) || scalar.properties.isWhitespace {
                    pendingSpace = !scalars.isEmpty
                    continue
                }
                if pendingSpace { scalars.append(" ") }
                pendingSpace = false
                scalars.append(scalar == ";" ? "," : scalar == ":" ? colon : scalar)
            }
            return String(scalars)
        }
    }

    /// The journal as hledger writes it, in pieces handed to `emit`: the price directives, then one transaction
    /// per record (`DATE * DESCRIPTION`, its id as the tag `id` on the next line, then its postings, each amount
    /// with its currency's minor-unit digits and the code after it), a blank line between them.
    ///
    /// ```
    /// P 2026-12-04 EUR 1.0534 USD
    ///
    /// 2026-12-04 * Lunch with the team
    ///     ; id: 0b0e9c36-58d1-4c83-a0f5-6fd2d6b6c2a1
    ///     Expenses:food  12.50 USD
    ///     Assets:Cash  -12.50 USD
    /// ```
    package func writeHledger(names: JournalAccountNames, _ emit: (String) throws -> Void) rethrows {
        for price in prices {
            try emit("P \(price.date) \(price.from.code) \(price.rate) \(price.to.code)\n")
        }
        for (index, transaction) in transactions.enumerated() {
            let description = Hledger.description(transaction.description)
            // `()`, an empty code, keeps a description that starts with `(` from being read as one.
            let header = description.isEmpty ? "" : description.hasPrefix("(") ? " () " + description : " " + description
            var text = index == 0 && prices.isEmpty ? "" : "\n"
            text += "\(transaction.date) *\(header)\n    ; id: \(UUIDText.lowercased(transaction.id))\n"
            for posting in transaction.postings {
                text += "    \(names.name(posting.account))  \(Self.amount(posting))\n"
            }
            try emit(text)
        }
    }
}
