import ExpenseCore

/// The text of `expense summary`: per currency a total line and, when grouped, one line per group with its
/// share in percent, and in a terminal a bar of Unicode blocks. Categories are listed largest first, months in
/// date order (as the JSON lists them). Amounts are written as `money` says (plain, or the locale's way).
enum SummaryReport {
    static let barWidth = 24

    static func render(_ summary: Summary, chart: Bool, grouping: SummaryGrouping = .category,
                       money: MoneyDisplay = .plain) -> String {
        guard !summary.totals.isEmpty else { return "" }
        var text = ""
        for total in summary.totals {
            let currency = total.currency
            text += "\(currency.code)  \(money.figure(total.amount, currency: currency))"
                + "  (\(total.count) expense\(total.count == 1 ? "" : "s"))\n"
            let groups = summary.groups.filter { $0.currency == currency }
                .sorted { grouping == .month ? $0.key < $1.key : ($0.amount, $1.key) > ($1.amount, $0.key) }
            guard let largest = groups.map(\.amount).max() else { continue }
            let keyWidth = min(groups.map { TerminalWidth.of($0.key) }.max() ?? 0, 30)
            let amounts = groups.map { money.figure($0.amount, currency: currency) }
            // In terminal columns: a locale's amount may hold a zero-width right-to-left mark.
            let amountWidth = amounts.map(TerminalWidth.of).max() ?? 0
            for (group, amount) in zip(groups, amounts) {
                let key = TerminalWidth.truncated(group.key, to: keyWidth)
                var line = "  " + TerminalWidth.padded(key, to: keyWidth)
                if chart {
                    let eighths = Int(scaled(group.amount, of: largest, to: Int64(barWidth * 8)))
                    line += "  " + bar(eighths: max(eighths, 1))
                }
                line += "  " + String(repeating: " ", count: amountWidth - TerminalWidth.of(amount)) + amount
                line += "  " + percent(group.amount, of: total.amount)
                text += line + "\n"
            }
        }
        return text
    }

    /// `part * scale / whole` without overflow (`part <= whole`), rounded down.
    static func scaled(_ part: Int64, of whole: Int64, to scale: Int64) -> Int64 {
        guard whole > 0 else { return 0 }
        let product = part.multipliedFullWidth(by: scale)
        return whole.dividingFullWidth(product).quotient
    }

    /// The share with one decimal, computed in integers and rounded half up: `36.5%`.
    static func percent(_ part: Int64, of whole: Int64) -> String {
        let permille = (scaled(part, of: whole, to: 10_000) + 5) / 10
        let text = "\(permille / 10).\(permille % 10)%"
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }

    /// A bar `eighths / 8` cells long, padded to the full width.
    static func bar(eighths: Int) -> String {
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        let full = String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
        return full + String(repeating: " ", count: barWidth - full.count)
    }
}
