import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

/// The output of `expense stats`: per currency a table (one row per period; with `--by category` one column
/// per category), its total and average rows, and in a terminal a trend line of one bar per period; or the
/// same numbers as JSON (minor units) or CSV (plain decimals).
enum StatsReport {
    /// The widest a category column gets, in terminal columns (longer names are cut with `…`).
    static let columnWidth = 14
    /// The marker of a partial period (the current one, or one cut by `--from`/`--to`).
    static let partialMark = "*"

    static func render(_ statistics: PeriodStatistics, chart: Bool, money: MoneyDisplay = .plain) -> String {
        let query = statistics.query
        var text = ""
        for table in statistics.tables {
            if !text.isEmpty { text += "\n" }
            text += "\(table.currency.code)  per \(query.period.rawValue), \(query.from) to \(query.to)"
                + "  (\(table.count) expense\(table.count == 1 ? "" : "s"))\n"
            var header = ["period"] + table.categories.map { TerminalWidth.truncated($0, to: columnWidth) }
            header.append(contentsOf: ["total", "count"])
            var lines: [[String]] = []
            for (span, row) in zip(statistics.periods, table.rows) {
                var cells = [span.label + (span.partial ? partialMark : "")]
                cells += row.amounts.map { money.figure($0, currency: table.currency) }
                cells += [money.figure(row.total, currency: table.currency), "\(row.count)"]
                lines.append(cells)
            }
            let totals = ["total"] + table.columnTotals.map { money.figure($0, currency: table.currency) }
                + [money.figure(table.total, currency: table.currency), "\(table.count)"]
            let averages = ["average"] + table.columnAverages.map { money.figure($0, currency: table.currency) }
                + [money.figure(table.average, currency: table.currency), ""]
            let all = [header] + lines + [totals, averages]
            let widths = header.indices.map { column in all.map { TerminalWidth.of($0[column]) }.max() ?? 0 }
            func line(_ cells: [String]) -> String {
                var result = "  " + TerminalWidth.padded(cells[0], to: widths[0])
                for column in 1..<cells.count {
                    result += "  " + String(repeating: " ", count: widths[column] - TerminalWidth.of(cells[column])) + cells[column]
                }
                return result.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
            }
            text += line(header)
            for cells in lines { text += line(cells) }
            text += "  " + String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)) + "\n"
            text += line(totals) + line(averages)
            if chart { text += "  trend  " + trend(table.rows.map(\.total)) + "\n" }
        }
        if statistics.periods.contains(where: \.partial) {
            text += "\(partialMark) partial period: the current one (so far) or cut by --from/--to; "
                + "every period counts in the average.\n"
        }
        return text
    }

    /// One bar per value, from `▁` (the smallest non-zero) to `█` (the largest); a zero is a space-like `·`.
    static func trend(_ values: [Int64]) -> String {
        let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let largest = values.max() ?? 0
        return String(values.map { value -> Character in
            guard value > 0, largest > 0 else { return "·" }
            return blocks[Int(SummaryReport.scaled(value, of: largest, to: 7))]
        })
    }

    // MARK: JSON and CSV

    /// The same numbers in minor units; `amounts` and `columnTotals`/`columnAverages` follow `categories`;
    /// `currency` only when the query names one; with `conversion` (`--in`), `in`, `at` and `unconverted`.
    static func json(_ statistics: PeriodStatistics, conversion: ViewConversion? = nil, unconverted: [UnconvertedTotal] = []) -> String {
        let query = statistics.query
        let amounts = { (values: [Int64]) in JSONValue.array(values.map { .int($0) }) }
        var body: [String: JSONValue] = [
            "period": .string(query.period.rawValue), "from": .string(query.from.description), "to": .string(query.to.description),
            "today": .string(query.today.description), "byCategory": .bool(query.byCategory),
            "periods": .array(statistics.periods.map {
                .object(["label": .string($0.label), "start": .string($0.start.description), "end": .string($0.end.description),
                         "partial": .bool($0.partial), "current": .bool($0.current)])
            }),
            "tables": .array(statistics.tables.map { table in
                .object(["currency": .string(table.currency.code), "categories": .array(table.categories.map { .string($0) }),
                         "rows": .array(zip(statistics.periods, table.rows).map { span, row in
                             .object(["period": .string(span.label), "amounts": amounts(row.amounts), "total": .int(row.total),
                                      "count": .int(row.count)])
                         }),
                         "columnTotals": amounts(table.columnTotals), "columnAverages": amounts(table.columnAverages),
                         "total": .int(table.total), "count": .int(table.count), "average": .int(table.average)])
            }),
        ]
        if let currency = query.currency { body["currency"] = .string(currency.code) }
        if let conversion {
            body["in"] = .string(conversion.target.code)
            body["at"] = .string(conversion.valuation.description)
            body["unconverted"] = ExpenseRunner.unconvertedJSON(unconverted)
        }
        return JSONWriter.prettyText(.object(body))
    }

    /// `currency,period,start,end,partial,<categories…>,total,count`, then per currency one line per period,
    /// a `total` and an `average` line; amounts as plain decimals. The category columns are every currency's
    /// categories together (a currency without one shows 0), so the file is one rectangular table.
    static func csv(_ statistics: PeriodStatistics) -> String {
        var categories: [String] = []
        for table in statistics.tables {
            for category in table.categories where !categories.contains(where: { ExactText.same($0, category) }) {
                categories.append(category)
            }
        }
        categories.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var text = CSV.row(["currency", "period", "start", "end", "partial"] + categories + ["total", "count"])
        for table in statistics.tables {
            let currency = table.currency
            func cells(_ amounts: [Int64]) -> [String] {
                categories.map { category in
                    guard let index = table.categories.firstIndex(where: { ExactText.same($0, category) }) else { return "0" }
                    return Money.format(amounts[index], currency: currency)
                }
            }
            for (span, row) in zip(statistics.periods, table.rows) {
                text += CSV.row([currency.code, span.label, span.start.description, span.end.description,
                                 span.partial ? "yes" : "no"] + cells(row.amounts)
                                + [Money.format(row.total, currency: currency), "\(row.count)"])
            }
            text += CSV.row([currency.code, "total", statistics.query.from.description, statistics.query.to.description, ""]
                            + cells(table.columnTotals) + [Money.format(table.total, currency: currency), "\(table.count)"])
            text += CSV.row([currency.code, "average", "", "", ""]
                            + cells(table.columnAverages) + [Money.format(table.average, currency: currency), ""])
        }
        return text
    }
}
