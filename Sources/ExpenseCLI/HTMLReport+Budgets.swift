import ExpenseCore

/// Budget against actual: for each budget of the currency (a category's, or a tag's shown as `tag:TAG`), its period containing the report's last day (or
/// today, when the range runs past it), with the same figures as `expense budget status` (``BudgetStatus``).
struct BudgetSection: ReportSection {
    var title: String { "Budget against actual" }

    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String? {
        guard !report.budgets.isEmpty else { return nil }
        let width = 680, rowHeight = 26, labelWidth = 200
        let height = rowHeight * report.budgets.count
        // The scale: the largest of what was available (budgeted + carried) and what was spent.
        let largest = report.budgets.map { max($0.status.budgeted.addingReportingOverflow($0.status.carried).partialValue, $0.status.spent) }.max() ?? 0
        var bars = ""
        for (index, entry) in report.budgets.enumerated() {
            let status = entry.status
            let available = max(0, status.budgeted.addingReportingOverflow(status.carried).partialValue)
            let y = index * rowHeight
            let budgetWidth = Int(SummaryReport.scaled(available, of: largest, to: Int64(width - labelWidth)))
            let spentWidth = Int(SummaryReport.scaled(max(0, status.spent), of: largest, to: Int64(width - labelWidth)))
            let label = "\(entry.name): \(money.text(status.spent, currency: report.currency)) of "
                + "\(money.text(available, currency: report.currency))\(status.isOver ? " (over)" : "")"
            bars += "<g><title>\(HTMLEscape.text(label))</title>"
                + "<text x=\"0\" y=\"\(y + 17)\" class=\"label\">\(HTMLEscape.text(entry.name))</text>"
                + "<rect class=\"bar budgeted\" x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(max(budgetWidth, 1))\" height=\"18\"/>"
                + "<rect class=\"bar spent\(status.isOver ? " over" : "")\" x=\"\(labelWidth)\" y=\"\(y + 8)\" "
                + "width=\"\(max(spentWidth, 1))\" height=\"10\"/></g>\n"
        }
        var html = "<svg class=\"chart budgets\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\">"
            + "<title id=\"\(id)-title\">Budget against actual, \(report.currency.code)</title>"
            + "<desc id=\"\(id)-desc\">One row per budget: the outer bar is what the period allows (budgeted and carried), "
            + "the inner bar what was spent; the table below has the numbers.</desc>\n\(bars)</svg>\n"
        html += "<table>\n<caption>\(report.currency.code) budgets, each for its period containing the report's last day</caption>\n"
            + "<thead><tr><th scope=\"col\">Budget</th><th scope=\"col\">Period</th><th scope=\"col\" class=\"number\">Budgeted</th>"
            + "<th scope=\"col\" class=\"number\">Carried</th><th scope=\"col\" class=\"number\">Spent</th>"
            + "<th scope=\"col\" class=\"number\">Left</th></tr></thead>\n<tbody>\n"
        for entry in report.budgets {
            let status = entry.status
            html += "<tr\(status.isOver ? " class=\"over\"" : "")><td><bdi>\(HTMLEscape.text(entry.name))</bdi></td>"
                + "<td class=\"number\">\(status.period.start) to \(status.period.end)</td>"
                + [status.budgeted, status.carried, status.spent, status.left].map {
                    "<td class=\"number\">\(HTMLEscape.text(money.text($0, currency: report.currency)))</td>"
                }.joined() + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }
}
