import ExpenseCore
import Foundation

/// The numbers of one currency in the report, gathered by `expense report` with the same code as `summary`
/// and `stats` (``ExpenseClient/LocalLedger/summary(_:)`` and ``ExpenseClient/LocalLedger/statistics(_:)``).
struct CurrencyReport: Sendable {
    var currency: Currency
    /// The total and count over the whole range.
    var total: CurrencyTotal
    /// Per category, largest first (ties by the category's bytes).
    var categories: [GroupTotal]
    /// The months of the range and this currency's row for each.
    var months: [PeriodSpan]
    var monthly: CurrencyStatistics
    /// The largest expenses of the range, largest first (converted with `--in`).
    var largest: [Expense]
    /// The amount charged (`--paid`, in minor units of ``ledgerCurrency``) of those of ``largest`` that have one,
    /// by id: a converted expense no longer carries its own.
    var charged: [UUID: Int64] = [:]
    /// The ledger's currency, which an amount charged is in.
    var ledgerCurrency: Currency?
    /// The currency's budgets, each with its period containing the report's last day (`expense budget status`).
    var budgets: [BudgetReport.Entry] = []
    /// Each member's balance of this currency (`expense balances`), and the transfers that would settle them.
    var balances: [NamedBalance] = []
    var settlement: [NamedTransfer] = []
}

/// One part of a currency's report (a chart with its table). New parts are added to ``HTMLReport/sections``.
protocol ReportSection: Sendable {
    /// The part's heading.
    var title: String { get }
    /// The part's HTML, or `nil` to leave it out for this currency. `id` is unique in the document.
    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String?
}

/// `expense report`: one self-contained HTML file (inline CSS and SVG, no script, no network; a
/// Content-Security-Policy forbids both), per currency a section per ``ReportSection``. Every text from the
/// ledger goes through ``HTMLEscape/text(_:)``.
enum HTMLReport {
    static let sections: [any ReportSection] = [CategorySection(), TrendSection(), BudgetSection(), LargestSection(),
                                                BalancesSection()]

    /// The document; with `conversion` (`report --in`), its subtitle under the title instead of "never added
    /// together", and a last section listing what was not converted.
    static func document(from: CalendarDay, to: CalendarDay, generated: CalendarDay, currencies: [CurrencyReport],
                         money: MoneyDisplay, conversion: ReportConversion? = nil) -> String {
        let title = "Expenses \(from) to \(to)"
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="generator" content="expense \(ExpenseCommands.version)">
            <title>\(HTMLEscape.text(title))</title>
            <style>\(stylesheet)</style>
            </head>
            <body>
            <main>
            <h1>\(HTMLEscape.text(title))</h1>
            <p class="meta">Written by <code>expense report</code> on \(generated). \(HTMLEscape.text(conversion?.subtitle ?? "Currencies are never added together."))</p>

            """
        if currencies.isEmpty { html += "<p>No expenses in this range.</p>\n" }
        if currencies.count > 1 {
            html += "<nav><ul>" + currencies.map { "<li><a href=\"#\($0.currency.code)\">\($0.currency.code)</a></li>" }.joined() + "</ul></nav>\n"
        }
        for report in currencies {
            let code = report.currency.code
            html += "<section class=\"currency\" id=\"\(code)\">\n<h2>\(code): "
                + HTMLEscape.text(money.text(report.total.amount, currency: report.currency))
                + " <span class=\"meta\">(\(report.total.count) expense\(report.total.count == 1 ? "" : "s"))</span></h2>\n"
            for (index, section) in sections.enumerated() {
                guard let body = section.html(report, money: money, id: "\(code)-\(index)") else { continue }
                html += "<section class=\"part\">\n<h3>\(HTMLEscape.text(section.title))</h3>\n\(body)</section>\n"
            }
            html += "</section>\n"
        }
        if let conversion, !conversion.unconverted.isEmpty {
            html += "<section class=\"unconverted\" id=\"unconverted\">\n<h2>Not converted</h2>\n<ul>\n"
                + conversion.unconverted.map { "<li>\(HTMLEscape.text($0))</li>\n" }.joined() + "</ul>\n</section>\n"
        }
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    /// `text` cut to `limit` characters with `…` (before escaping, so no entity is ever cut).
    static func cut(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// An `<svg>` with its accessible title and description (`role="img"`, `aria-labelledby`).
    static func svg(id: String, width: Int, height: Int, title: String, description: String, body: String) -> String {
        "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" aria-labelledby=\"\(id)-title \(id)-desc\" "
            + "xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"\(id)-title\">\(HTMLEscape.text(title))</title>\n"
            + "<desc id=\"\(id)-desc\">\(HTMLEscape.text(description))</desc>\n\(body)</svg>\n"
    }

    static let stylesheet = """

        :root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1d1f; --muted: #5f6368; --bar: #2f6fde;
          --bar2: #e0892b; --grid: #d9dce1; --stripe: #f4f6f9; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #16181c; --fg: #e8eaed; --muted: #a0a4ab; --bar: #7aa7ff; --bar2: #f2a65a; --grid: #3a3f47;
            --stripe: #1f2228; }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; background: var(--bg); color: var(--fg);
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
        main { max-width: 960px; margin: 0 auto; padding: 16px 24px 48px; }
        h1 { font-size: 1.6em; margin: 0.4em 0; }
        h2 { font-size: 1.3em; margin-top: 1.6em; border-bottom: 2px solid var(--grid); padding-bottom: 0.2em; }
        h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
        .meta { color: var(--muted); font-weight: normal; }
        nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.8em; }
        a { color: var(--bar); }
        h1, h2, h3, p, td, figcaption, bdi { overflow-wrap: anywhere; word-break: break-word; }
        .chart { display: block; width: 100%; height: auto; max-width: 720px; }
        .chart text { fill: var(--fg); font-size: 13px; }
        .chart .bar { fill: var(--bar); }
        .chart .bar.current { fill: var(--bar2); }
        .chart .bar.budgeted { fill: none; stroke: var(--bar); stroke-width: 1.5; }
        .chart .bar.spent.over, tr.over td { fill: #c0392b; color: #c0392b; }
        .chart .axis { stroke: var(--grid); stroke-width: 1; }
        .chart .value { fill: var(--muted); }
        table { width: 100%; border-collapse: collapse; margin: 0.6em 0 0.2em; font-size: 0.92em; }
        caption { text-align: left; color: var(--muted); padding-bottom: 0.3em; }
        th, td { text-align: left; padding: 0.3em 0.5em; border-bottom: 1px solid var(--grid); vertical-align: top; }
        tbody tr:nth-child(even) { background: var(--stripe); }
        td.number, th.number { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
        tfoot td { font-weight: 600; }
        details summary { cursor: pointer; color: var(--muted); }
        @media print {
          :root { --bg: #ffffff; --fg: #000000; --muted: #444444; --bar: #2f6fde; --bar2: #e0892b; --grid: #bbbbbb;
            --stripe: #f2f2f2; }
          body { font-size: 11pt; }
          main { max-width: none; padding: 0; }
          nav { display: none; }
          section.currency { break-before: page; }
          section.currency:first-of-type { break-before: auto; }
          section.part, table, .chart { break-inside: avoid; }
          details > :not(summary) { display: block; }
          a { color: inherit; text-decoration: none; }
        }

        """
}

/// Spending by category: horizontal bars with each share, and the table behind them.
struct CategorySection: ReportSection {
    var title: String { "Spending by category" }

    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String? {
        guard !report.categories.isEmpty else { return nil }
        let rowHeight = 26, labelWidth = 190, barWidth = 300
        let largest = report.categories.map(\.amount).max() ?? 0
        var bars = ""
        for (index, group) in report.categories.enumerated() {
            let y = index * rowHeight
            let length = max(1, Int(SummaryReport.scaled(group.amount, of: largest, to: Int64(barWidth))))
            let share = SummaryReport.percent(group.amount, of: report.total.amount).trimmingCharacters(in: .whitespaces)
            let amount = money.text(group.amount, currency: report.currency)
            bars += "<g><title>\(HTMLEscape.text("\(group.key): \(amount), \(share)"))</title>"
                + "<text x=\"0\" y=\"\(y + 18)\">\(HTMLEscape.text(HTMLReport.cut(group.key, to: 24)))</text>"
                + "<rect class=\"bar category\" x=\"\(labelWidth)\" y=\"\(y + 5)\" width=\"\(length)\" height=\"\(rowHeight - 8)\" rx=\"2\"/>"
                + "<text class=\"value\" x=\"\(labelWidth + length + 6)\" y=\"\(y + 18)\">\(HTMLEscape.text(share))</text></g>\n"
        }
        let description = report.categories.prefix(5).map {
            "\($0.key) \(SummaryReport.percent($0.amount, of: report.total.amount).trimmingCharacters(in: .whitespaces))"
        }.joined(separator: ", ")
        var html = "<figure>\n" + HTMLReport.svg(
            id: id, width: labelWidth + barWidth + 70, height: max(rowHeight, report.categories.count * rowHeight),
            title: "\(report.currency.code) spending by category",
            description: "\(report.categories.count) categories, largest first: \(description)", body: bars)
        html += "</figure>\n<table>\n<caption>The numbers behind the chart</caption>\n"
            + "<thead><tr><th scope=\"col\">Category</th><th scope=\"col\" class=\"number\">Amount</th>"
            + "<th scope=\"col\" class=\"number\">Share</th><th scope=\"col\" class=\"number\">Expenses</th></tr></thead>\n<tbody>\n"
        for group in report.categories {
            html += "<tr><td><bdi>\(HTMLEscape.text(group.key))</bdi></td>"
                + "<td class=\"number\">\(HTMLEscape.text(money.text(group.amount, currency: report.currency)))</td>"
                + "<td class=\"number\">\(SummaryReport.percent(group.amount, of: report.total.amount).trimmingCharacters(in: .whitespaces))</td>"
                + "<td class=\"number\">\(group.count)</td></tr>\n"
        }
        html += "</tbody>\n<tfoot><tr><td>Total</td><td class=\"number\">"
            + HTMLEscape.text(money.text(report.total.amount, currency: report.currency))
            + "</td><td class=\"number\">100.0%</td><td class=\"number\">\(report.total.count)</td></tr></tfoot>\n</table>\n"
        return html
    }
}

/// The monthly trend: one bar per month of the range (empty months too), and the table behind it.
struct TrendSection: ReportSection {
    var title: String { "Monthly trend" }

    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String? {
        let rows = report.monthly.rows
        guard !rows.isEmpty else { return nil }
        let width = 680, height = 220, top = 10, bottom = 30, left = 4
        let slot = Double(width - left) / Double(rows.count)  // not money: pixels of the chart
        let largest = rows.map(\.total).max() ?? 0
        let labelEvery = max(1, Int((62.0 / slot).rounded(.up)))
        var bars = "<line class=\"axis\" x1=\"0\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\"/>\n"
        for (index, (span, row)) in zip(report.months, rows).enumerated() {
            let barHeight = Int(SummaryReport.scaled(row.total, of: largest, to: Int64(height - top - bottom)))
            let x = left + Int(Double(index) * slot + slot * 0.15)  // not money: pixels
            let amount = money.text(row.total, currency: report.currency)
            bars += "<g><title>\(HTMLEscape.text("\(span.label)\(span.partial ? " (partial)" : ""): \(amount)"))</title>"
                + "<rect class=\"bar month\(span.current ? " current" : "")\" x=\"\(x)\" y=\"\(height - bottom - barHeight)\" "
                + "width=\"\(max(1, Int(slot * 0.7)))\" height=\"\(barHeight)\"/></g>\n"
            if index % labelEvery == 0 {
                bars += "<text x=\"\(x)\" y=\"\(height - 10)\">\(HTMLEscape.text(span.label))</text>\n"
            }
        }
        let peak = zip(report.months, rows).max { $0.1.total < $1.1.total }
        var html = "<figure>\n" + HTMLReport.svg(
            id: id, width: width, height: height, title: "\(report.currency.code) spending per month",
            description: "\(rows.count) months from \(report.months.first?.label ?? "") to \(report.months.last?.label ?? ""); "
                + "average \(money.text(report.monthly.average, currency: report.currency)) a month"
                + (peak.map { "; highest \($0.0.label) with \(money.text($0.1.total, currency: report.currency))" } ?? ""),
            body: bars)
        html += "</figure>\n<table>\n<caption>The numbers behind the chart (* partial month)</caption>\n"
            + "<thead><tr><th scope=\"col\">Month</th><th scope=\"col\" class=\"number\">Amount</th>"
            + "<th scope=\"col\" class=\"number\">Expenses</th></tr></thead>\n<tbody>\n"
        for (span, row) in zip(report.months, rows) {
            html += "<tr><td>\(HTMLEscape.text(span.label))\(span.partial ? "*" : "")</td>"
                + "<td class=\"number\">\(HTMLEscape.text(money.text(row.total, currency: report.currency)))</td>"
                + "<td class=\"number\">\(row.count)</td></tr>\n"
        }
        html += "</tbody>\n<tfoot><tr><td>Average per month</td><td class=\"number\">"
            + HTMLEscape.text(money.text(report.monthly.average, currency: report.currency))
            + "</td><td class=\"number\"></td></tr></tfoot>\n</table>\n"
        return html
    }
}

/// The largest expenses of the range.
struct LargestSection: ReportSection {
    var title: String { "Largest expenses" }

    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String? {
        guard !report.largest.isEmpty else { return nil }
        // The amount charged in the ledger's currency, as on a card statement: a column only when one is listed.
        let anyCharged = report.largest.contains { (expense: Expense) in report.charged[expense.id] != nil }
        let charged: Currency? = anyCharged ? report.ledgerCurrency : nil
        var html = "<table>\n<caption>The \(report.largest.count) largest \(report.currency.code) expenses</caption>\n"
            + "<thead><tr><th scope=\"col\">Date</th><th scope=\"col\">Category</th><th scope=\"col\">Note</th>"
            + "<th scope=\"col\" class=\"number\">Amount</th>"
            + (charged.map { "<th scope=\"col\" class=\"number\">Charged in \($0.code)</th>" } ?? "") + "</tr></thead>\n<tbody>\n"
        for expense in report.largest {
            html += "<tr><td class=\"number\">\(expense.date)</td><td><bdi>\(HTMLEscape.text(expense.category))</bdi></td>"
                + "<td><bdi>\(HTMLEscape.text(expense.note))</bdi></td>"
                + "<td class=\"number\">\(HTMLEscape.text(money.text(expense.amount, currency: report.currency)))</td>"
            if let charged {
                html += "<td class=\"number\">" + (report.charged[expense.id].map { HTMLEscape.text(money.text($0, currency: charged)) } ?? "") + "</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}
