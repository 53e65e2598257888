import ExpenseCore

/// The readable table of `expense list`: date, amount (right-aligned), currency, category, note, short id.
/// When money is written the locale's way (`1.234.567,50 €`) the amount carries its currency and the table
/// has no currency column.
enum ExpenseTable {
    static let noteWidth = 40

    /// The table; when an expense names a payer or a split, two more columns show who paid and each member's
    /// share (`alice 60.00, bob 30.00`), named through `members`; when one has an amount charged (`--paid`), a
    /// column shows it in `ledgerCurrency` (`128.40 EUR`); when one has tags, a column shows them (`trip,work`);
    /// when one has parts in other categories, a PARTS column shows them (`household 12.30, pharmacy 9.90`: its
    /// CATEGORY keeps the rest of its AMOUNT); when an imported expense's note no longer is the bank's text it
    /// was imported with (edited, or set by a rule), a SOURCE column shows that text (empty where it is the note).
    static func render(_ expenses: [Expense], money: MoneyDisplay = .plain, members: MemberDirectory = MemberDirectory(members: []),
                       ledgerCurrency: Currency? = nil) -> String {
        let withCurrency = !money.showsCurrency
        let shared = expenses.contains { $0.paidBy != nil || $0.split != nil }
        let charged = ledgerCurrency.flatMap { currency in expenses.contains { $0.charged != nil } ? currency : nil }
        let tagged = expenses.contains { !$0.tags.isEmpty }
        let withParts = expenses.contains { $0.parts != nil }
        func source(_ expense: Expense) -> String { ExactText.same(expense.source, expense.note) ? "" : expense.source }
        let withSource = expenses.contains { !source($0).isEmpty }
        var header: [String] = withCurrency ? ["DATE", "AMOUNT", "CUR", "CATEGORY", "NOTE"] : ["DATE", "AMOUNT", "CATEGORY", "NOTE"]
        if shared { header += ["PAID BY", "SPLIT"] }
        if charged != nil { header.append("CHARGED") }
        if tagged { header.append("TAGS") }
        if withParts { header.append("PARTS") }
        if withSource { header.append("SOURCE") }
        header.append("ID")
        let rows = expenses.map { expense -> [String] in
            var row = [expense.date.description, money.figure(expense.amount, currency: expense.currency)]
            if withCurrency { row.append(expense.currency.code) }
            row += [oneLine(expense.category, width: 64), oneLine(expense.note, width: noteWidth)]
            if shared {
                let shares = expense.shares.map { members.name($0.member) + " " + money.figure($0.amount, currency: expense.currency) }
                row += [oneLine(expense.paidBy.map(members.name) ?? "", width: 20), oneLine(shares.joined(separator: ", "), width: noteWidth)]
            }
            if let charged { row.append(expense.charged.map { money.text($0, currency: charged) } ?? "") }
            if tagged { row.append(oneLine(expense.tagsText, width: noteWidth)) }
            if withParts {
                // The parts in other categories; the amount's category keeps the rest.
                let parts = expense.parts?.parts.map { $0.category + " " + money.figure($0.amount, currency: expense.currency) } ?? []
                row.append(oneLine(parts.joined(separator: ", "), width: noteWidth))
            }
            if withSource { row.append(oneLine(source(expense), width: noteWidth)) }
            row.append(String(expense.idString.prefix(8)))
            return row
        }
        // In terminal columns, not characters: CJK and emoji take two, a right-to-left mark none.
        let widths = header.indices.map { column in ([header] + rows).map { TerminalWidth.of($0[column]) }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.indices.map { column in
                let cell = row[column]
                let padding = String(repeating: " ", count: widths[column] - TerminalWidth.of(cell))
                if column == 1 { return padding + cell }               // amounts right-aligned
                return column == row.count - 1 ? cell : cell + padding
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// Tabs and line breaks shown as spaces, other control and bidirectional formatting characters escaped as
    /// every message shows them (``ExpenseCore/DisplayText``), text wider than `width` columns cut with an
    /// ellipsis: each expense stays on one line, and nothing in it restyles or reorders the terminal row.
    static func oneLine(_ text: String, width: Int) -> String {
        TerminalWidth.truncated(DisplayText.escapedWhole(String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })), to: width)
    }
}
