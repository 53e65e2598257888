import ExpenseCore

/// The text of `expense summary`: per currency a total line and, when grouped, one line per group,
/// largest first, with its share in percent, and in a terminal a bar of Unicode blocks.
enum SummaryReport {
    static let barWidth = 24

    static func render(_ summary: Summary, chart: Bool) -> String {
        guard !summary.totals.isEmpty else { return "" }
        var text = ""
        for total in summary.totals {
            let currency = total.currency
            text += "\(currency.code)  \(Money.format(total.amount, currency: currency))"
                + "  (\(total.count) expense\(total.count == 1 ? "" : "s"))\n"
            let groups = summary.groups.filter { $0.currency == currency }
                .sorted { ($0.amount, $1.key) > ($1.amount, $0.key) }
            guard let largest = groups.first?.amount else { continue }
            let keyWidth = min(groups.map { TerminalWidth.of($0.key) }.max() ?? 0, 30)
            let amountWidth = groups.map { Money.format($0.amount, currency: currency).count }.max() ?? 0
            for group in groups {
                let key = TerminalWidth.truncated(group.key, to: keyWidth)
                let amount = Money.format(group.amount, currency: currency)
                var line = "  " + TerminalWidth.padded(key, to: keyWidth)
                if chart {
                    let eighths = Int(scaled(group.amount, of: largest, to: Int64(barWidth * 8)))
                    line += "  " + bar(eighths: max(eighths, 1))
                }
                line += "  " + String(repeating: " ", count: amountWidth - amount.count) + amount
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
