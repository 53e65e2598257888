import ExpenseCore
import Foundation

/// The text of `expense budget status`: one line per budget with its period, budgeted, carried, spent and left,
/// and in a terminal a bar of the share spent (drawn like `summary`'s), over-budget ones marked OVER.
enum BudgetReport {
    struct Entry {
        var budget: Budget
        var status: BudgetStatus
    }

    static func render(_ entries: [Entry], chart: Bool, money: MoneyDisplay = .plain) -> String {
        let width = min(entries.map { TerminalWidth.of($0.budget.category) }.max() ?? 0, 30)
        var text = ""
        for entry in entries {
            let status = entry.status, currency = entry.budget.currency
            var line = TerminalWidth.padded(TerminalWidth.truncated(entry.budget.category, to: width), to: width)
                + "  \(currency.code)  \(status.period.start) to \(status.period.end)"
            if chart {
                // The bar is the share of budgeted + carried spent, full when over (or nothing was available).
                let available = max(0, status.budgeted.addingReportingOverflow(status.carried).partialValue)
                let whole = Int64(SummaryReport.barWidth * 8)
                let eighths = status.spent >= available ? whole : SummaryReport.scaled(status.spent, of: available, to: whole)
                line += "  " + SummaryReport.bar(eighths: Int(eighths))
            }
            line += "  budgeted \(money.figure(status.budgeted, currency: currency))"
            if status.carried != 0 { line += ", carried \(money.figure(status.carried, currency: currency))" }
            line += ", spent \(money.figure(status.spent, currency: currency)), left \(money.figure(status.left, currency: currency))"
            if status.isOver { line += "  OVER" }
            text += line + "\n"
        }
        return text
    }
}

/// The JSON of `expense budget list` and `status`: amounts in minor units, keys sorted.
enum BudgetJSON {
    struct Amount: Encodable { var from: String, amount: Int64 }
    struct Item: Encodable {
        var id: String, category: String, currency: String, period: String, start: String, rollover: String, amounts: [Amount]
    }
    struct StatusItem: Encodable {
        var category: String, currency: String, start: String, end: String
        var budgeted: Int64, carried: Int64, spent: Int64, left: Int64, over: Bool
    }

    static func list(_ budgets: [Budget]) throws -> String {
        try encode(budgets.map { budget in
            Item(id: UUIDText.lowercased(budget.id), category: budget.category, currency: budget.currency.code,
                 period: budget.period.rawValue, start: budget.start.description, rollover: budget.rollover.rawValue,
                 amounts: budget.amounts.map { Amount(from: $0.from.description, amount: $0.amount) })
        })
    }

    static func status(_ entries: [BudgetReport.Entry]) throws -> String {
        try encode(entries.map { entry in
            let status = entry.status
            return StatusItem(category: entry.budget.category, currency: entry.budget.currency.code,
                              start: status.period.start.description, end: status.period.end.description,
                              budgeted: status.budgeted, carried: status.carried, spent: status.spent, left: status.left,
                              over: status.isOver)
        })
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
