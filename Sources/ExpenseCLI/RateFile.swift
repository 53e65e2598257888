import ExpenseClient
import ExpenseCore
import Foundation

/// A file of exchange rates (`expense rate import`): ours, `date,from,to,rate` with an optional header, or the
/// European Central Bank's (`Date, USD, JPY, …`, each cell 1 EUR in its column's currency).
struct RateFile {
    /// The rates, in file order, each (day, pair) once.
    var rates: [ExchangeRate] = []
    /// What was skipped and why (a column of an unknown currency), for standard error.
    var warnings: [String] = []

    /// Our header, compared without case.
    static let header = ["date", "from", "to", "rate"]

    /// Reads `text`.
    /// - Throws: ``ImportError``: `malformed` for bad CSV, `invalidRows` naming each bad line (nothing is set).
    static func parse(_ text: String) throws -> RateFile {
        let records: [CSVRecord]
        do { records = try CSV.parse(text) } catch { throw ImportError.malformed(error) }
        let rows = records.map { record in (line: record.line, cells: record.fields.map { $0.trimmingCharacters(in: .whitespaces) }) }
        var file = RateFile()
        var problems: [ImportError.RowProblem] = []
        var entries: [(rate: ExchangeRate, line: Int)] = []
        if let header = rows.first?.cells, header.first?.lowercased() == "date", header.map({ $0.lowercased() }) != Self.header {
            entries = centralBank(rows, warnings: &file.warnings, problems: &problems)
        } else {
            for (index, row) in rows.enumerated() {
                if index == 0, row.cells.map({ $0.lowercased() }) == Self.header { continue }
                do {
                    if let rate = try ours(row.cells) { entries.append((rate, row.line)) }
                } catch {
                    problems.append(Self.problem(error, line: row.line))
                }
            }
        }
        var seen: [UUID: (line: Int, rate: Rate)] = [:]
        for (rate, line) in entries {
            guard let earlier = seen[rate.id] else {
                seen[rate.id] = (line, rate.rate)
                file.rates.append(rate)
                continue
            }
            if earlier.rate != rate.rate {
                problems.append(.init(line: line, code: "duplicate_rate", message: "line \(earlier.line) sets \(rate.from.code) in "
                                      + "\(rate.to.code) on \(rate.date) to \(earlier.rate), this line to \(rate.rate)"))
            }
        }
        guard problems.isEmpty else {
            throw ImportError.invalidRows(Array(problems.sorted { $0.line < $1.line }.prefix(ImportError.shownProblems)), total: problems.count)
        }
        return file
    }

    /// A row of our layout, `date,from,to,rate`.
    private static func ours(_ cells: [String]) throws -> ExchangeRate? {
        guard cells.count == 4 else {
            throw ImportError.RowProblem(line: 0, code: "invalid_row", message: "expected 4 fields (date,from,to,rate), found \(cells.count)")
        }
        let from = try ExpenseValidator.validateCurrency(cells[1]), to = try ExpenseValidator.validateCurrency(cells[2])
        guard from != to else { throw LedgerDataError.invalidValue(field: "to", detail: "the same currency as from; a rate is between two currencies") }
        return ExchangeRate(date: try ExpenseValidator.validateDate(cells[0]), from: from, to: to, rate: try Rate(cells[3]))
    }

    /// The European Central Bank's layout: a header of currency codes, then a row per day.
    private static func centralBank(_ rows: [(line: Int, cells: [String])], warnings: inout [String],
                                    problems: inout [ImportError.RowProblem]) -> [(rate: ExchangeRate, line: Int)] {
        guard let euro = Currency(code: "EUR"), let header = rows.first?.cells else { return [] }
        var columns: [Int: Currency] = [:]
        for (index, code) in header.enumerated().dropFirst() where !code.isEmpty {
            switch Currency(code: code) {
            case euro?: warnings.append("skipping the column \(DisplayText.quoted(code)): every rate of the file is of 1 EUR")
            case let currency?: columns[index] = currency
            case nil: warnings.append("skipping the column \(DisplayText.quoted(code)): not a currency this program knows")
            }
        }
        var entries: [(rate: ExchangeRate, line: Int)] = []
        for row in rows.dropFirst() {
            guard let date = centralBankDay(row.cells.first ?? "") else {
                problems.append(.init(line: row.line, code: "invalid_date",
                                      message: "\(DisplayText.quoted(row.cells.first ?? "")) is not a day such as 04 December 2026 or 2026-12-04"))
                continue
            }
            for (index, cell) in row.cells.enumerated().dropFirst() where !cell.isEmpty && cell.uppercased() != "N/A" {
                guard index < header.count else {
                    problems.append(.init(line: row.line, code: "invalid_row", message: "more cells than the header has columns"))
                    break
                }
                guard let currency = columns[index] else { continue }
                do throws(RateError) {
                    entries.append((ExchangeRate(date: date, from: euro, to: currency, rate: try Rate(cell)), row.line))
                } catch {
                    problems.append(.init(line: row.line, code: error.code, message: "\(currency.code): \(error.message)"))
                }
            }
        }
        return entries
    }

    /// `2026-12-04`, or `04 December 2026` (eurofxref.csv; the day may have one digit, the month any case).
    static func centralBankDay(_ text: String) -> CalendarDay? {
        if let day = CalendarDay(text) { return day }
        let parts = text.split(separator: " ")
        let months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        guard parts.count == 3, (1...2).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let day = Int(parts[0]),
              let month = months.firstIndex(of: parts[1].lowercased()), parts[2].count == 4, let year = Int(parts[2]) else { return nil }
        return CalendarDay(year: year, month: month + 1, day: day)
    }

    /// A bad field of our layout as a row problem on `line`, with its own code.
    private static func problem(_ error: any Error, line: Int) -> ImportError.RowProblem {
        switch error {
        case let error as ImportError.RowProblem: .init(line: line, code: error.code, message: error.message)
        case let error as ValidationError: .init(line: line, code: error.code, message: error.message)
        case let error as RateError: .init(line: line, code: error.code, message: error.message)
        case let error as LedgerDataError: .init(line: line, code: error.code, message: error.message)
        default: .init(line: line, code: "invalid_row", message: "\(error)")
        }
    }
}
