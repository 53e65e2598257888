import ExpenseCore
import ExpenseProtocol
import Foundation

/// The text of `expense budget status`: one line per budget with its period, budgeted, carried, spent and left,
/// and in a terminal a bar of the share spent (drawn like `summary`'s), over-budget ones marked OVER.
enum BudgetReport {
    struct Entry {
        var budget: Budget
        var status: BudgetStatus
        /// The budget's own currency when its figures were converted into ``budget``'s (`--in`), else `nil`.
        var source: Currency? = nil

        /// The budget's category (or `tag:TAG`), and its own currency when converted (`food (USD budget)`): two
        /// budgets of one category in two currencies both show in the one currency of a converted report.
        var name: String { budget.target.name + (source.map { " (\($0.code) budget)" } ?? "") }
    }

    static func render(_ entries: [Entry], chart: Bool, money: MoneyDisplay = .plain) -> String {
        let width = min(entries.map { TerminalWidth.of($0.budget.target.name) }.max() ?? 0, 30)
        var text = ""
        for entry in entries {
            let status = entry.status, currency = entry.budget.currency
            var line = TerminalWidth.padded(TerminalWidth.truncated(entry.budget.target.name, to: width), to: width)
                + "  \(currency.code)" + (entry.source.map { " (a \($0.code) budget)" } ?? "")
                + "  \(status.period.start) to \(status.period.end)"
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

/// The JSON of `expense budget list` and `status`: amounts in minor units, keys sorted (``JSONWriter/prettyText(_:)``).
enum BudgetJSON {
    static func list(_ budgets: [Budget]) -> String {
        JSONWriter.prettyText(.array(budgets.map { budget in
            .object(targetMembers(budget.target).merging([
                "id": .string(UUIDText.lowercased(budget.id)), "currency": .string(budget.currency.code),
                "period": .string(budget.period.rawValue), "start": .string(budget.start.description),
                "rollover": .string(budget.rollover.rawValue),
                "amounts": .array(budget.amounts.map { .object(["from": .string($0.from.description), "amount": .int($0.amount)]) }),
            ]) { first, _ in first })
        }))
    }

    /// A budget's target as JSON members: `category`, or `tag` for a tag budget (never both), so a script tells
    /// them apart without parsing `tag:`.
    static func targetMembers(_ target: BudgetTarget) -> [String: JSONValue] {
        switch target {
        case .category(let category): ["category": .string(category)]
        case .tag(let tag): ["tag": .string(tag)]
        }
    }

    static func status(_ entries: [BudgetReport.Entry]) -> String {
        JSONWriter.prettyText(statusArray(entries))
    }

    /// `budget status --in --json`: `{in, at, budgets, unconverted, unconvertedBudgets}`; each budget as without
    /// `--in`, its figures in `in`, with its own currency as `budgetCurrency`.
    static func status(_ budgets: ConvertedBudgets, converter: CurrencyConverter) -> String {
        JSONWriter.prettyText(.object([
            "in": .string(converter.target.code), "at": .string(converter.valuation.description),
            "budgets": statusArray(budgets.entries), "unconverted": ExpenseRunner.unconvertedJSON(converter.unconverted),
            "unconvertedBudgets": .array(budgets.unconverted.map { budget, day in
                .object(targetMembers(budget.target).merging(["currency": .string(budget.currency.code), "day": .string(day.description)]) { first, _ in first })
            }),
        ]))
    }

    private static func statusArray(_ entries: [BudgetReport.Entry]) -> JSONValue {
        .array(entries.map { entry in
            let status = entry.status
            var object: [String: JSONValue] = targetMembers(entry.budget.target).merging([
                "currency": .string(entry.budget.currency.code),
                "start": .string(status.period.start.description), "end": .string(status.period.end.description),
                "budgeted": .int(status.budgeted), "carried": .int(status.carried), "spent": .int(status.spent),
                "left": .int(status.left), "over": .bool(status.isOver),
            ]) { first, _ in first }
            if let source = entry.source { object["budgetCurrency"] = .string(source.code) }
            return .object(object)
        })
    }
}
