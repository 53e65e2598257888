// libFuzzer target `csv`: what `expense import FILE` does with the file's bytes before it stores anything
// (ExpenseRunner.importFile): UTF-8 check, format detection (ImportOptions.format(of:)), then
// CSVImporter.rows (CSV.parse, header or --map columns, formula guards, amounts by Money.parse or the bank rules
// of ImportAmount, --date-format, the core's validator, derived ids, duplicate ids) or JSONImporter.rows.
//
// The first input byte picks the options, the rest is the file:
//   bits 0-1  layout: 0 our export (no options); 1 a German bank (--map date=Buchungstag,amount=Betrag,
//             category=Kategorie,note=Verwendungszweck --delimiter ';' --decimal-comma --date-format DD.MM.YYYY
//             --currency EUR); 2 a US bank (--map date=Date,amount=Amount,category=Description,note=Memo,
//             currency=Currency,id=Reference --date-format MM/DD/YYYY); 3 a tab-separated bank file (--map
//             date=Datum,amount=Bedrag,category=Omschrijving --delimiter tab --decimal-comma --date-format YYYYMMDD)
//   bits 2-3  --format: detected, csv, json, detected
//   bit 4     --decimal-comma on our export
//   bits 5-7  the ledger's currency (USD, EUR, JPY, BHD, CHF, GBP, KWD, CLF: 2, 0, 3 and 4 decimals)
//
// Never a crash. On a file that imports, also: rows in line order with distinct ids, each row valid again as
// it stands; the rows written back by `export` (its CSV and its JSON, mirrored from ExpenseStream.write) import
// to exactly the same expenses with their ids (docs/usage.md, "export": "a round trip is exact"). On a file CSV.parse reads with
// `,`: its records written by CSV.row and read again are the same fields once unguarded.
// Built by Scripts/fuzz together with ExpenseCore, ExpenseProtocol, the import files of ExpenseClient and
// FuzzFailure.swift as one module.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let selector = input.first else { return 0 }
    let file = Array(input.dropFirst())
    // As the CLI reads the file: not UTF-8 is refused before any parsing.
    guard let text = String(data: Data(file), encoding: .utf8) else { return 0 }
    guard let (options, currency) = importOptions(selector) else { return 0 }
    let format = options.format(of: Substring(text))
    // The CLI's usage error: CSV options on a JSON file.
    if format == .json, options.columns != nil || options.decimalComma || options.dateFormat != nil || options.delimiter != "," {
        return 0
    }
    let imported: [ImportRow]
    do {
        imported = format == .json
            ? try JSONImporter.rows(from: text, defaultCurrency: currency)
            : try CSVImporter.rows(from: text, options: options, defaultCurrency: currency)
    } catch {
        _ = "\(error)"  // the message the CLI prints: built for every refusal
        imported = []
    }
    if options.delimiter == "," { checkRecordsRoundTrip(text, input: input) }
    guard !imported.isEmpty else { return 0 }
    var ids = Set<UUID>()
    var lastLine = 0
    for row in imported {
        fuzzCheck(row.line > lastLine, "rows out of line order (line \(row.line) after \(lastLine))", input: input)
        lastLine = row.line
        fuzzCheck(ids.insert(row.expense.id).inserted, "two rows with the id \(row.expense.idString)", input: input)
        let again = try? ExpenseValidator.validate(row.expense.draft)
        fuzzCheck(again == row.expense, "an imported row is not valid again as it stands (line \(row.line))", input: input)
    }
    checkExportRoundTrip(imported.map(\.expense), input: input)
    return 0
}

/// The options the selector byte picks, as the CLI builds them from its flags; `nil` if a flag were refused.
private func importOptions(_ selector: UInt8) -> (ImportOptions, Currency)? {
    var options = ImportOptions()
    do {
        switch selector & 3 {
        case 1:
            options.columns = try ImportOptions.columns(fromMap: "date=Buchungstag,amount=Betrag,category=Kategorie,note=Verwendungszweck")
            options.delimiter = try ImportOptions.delimiter(from: ";")
            options.decimalComma = true
            options.dateFormat = try ImportDateFormat("DD.MM.YYYY")
            options.currency = Currency(code: "EUR")
        case 2:
            options.columns = try ImportOptions.columns(
                fromMap: "date=Date,amount=Amount,category=Description,note=Memo,currency=Currency,id=Reference")
            options.dateFormat = try ImportDateFormat("MM/DD/YYYY")
        case 3:
            options.columns = try ImportOptions.columns(fromMap: "date=Datum,amount=Bedrag,category=Omschrijving")
            options.delimiter = try ImportOptions.delimiter(from: "tab")
            options.decimalComma = true
            options.dateFormat = try ImportDateFormat("YYYYMMDD")
        default:
            options.decimalComma = selector & 16 != 0
        }
    } catch {
        return nil
    }
    switch (selector >> 2) & 3 {
    case 1: options.format = .csv
    case 2: options.format = .json
    default: options.format = nil
    }
    let codes = ["USD", "EUR", "JPY", "BHD", "CHF", "GBP", "KWD", "CLF"]
    guard let currency = Currency(code: codes[Int(selector >> 5)]) else { return nil }
    return (options, currency)
}

/// `export`'s CSV and JSON of `expenses` (ExpenseStream.write), imported again with no options: the same
/// expenses, ids given.
private func checkExportRoundTrip(_ expenses: [Expense], input: UnsafeBufferPointer<UInt8>) {
    var csv = CSV.row(CSVImporter.header)
    var json = JSONWriter()
    json.raw("[\n  ")
    for (index, expense) in expenses.enumerated() {
        csv += CSV.row([expense.idString, expense.date.description, Money.format(expense.amount, currency: expense.currency),
                        expense.currency.code, expense.category, expense.note])
        if index > 0 { json.raw(",\n  ") }
        json.pretty(.object(["amount": .int(expense.amount), "category": .string(expense.category),
                             "currency": .string(expense.currency.code), "date": .string(expense.date.description),
                             "id": .string(expense.idString), "note": .string(expense.note)]), depth: 1)
    }
    json.raw("\n]\n")
    let jsonText = String(decoding: json.bytes, as: UTF8.self)
    for (name, text) in [("CSV", csv), ("JSON", jsonText)] {
        let options = ImportOptions()
        let rows: [ImportRow]
        do {
            rows = options.format(of: Substring(text)) == .json
                ? try JSONImporter.rows(from: text, defaultCurrency: .usd)
                : try CSVImporter.rows(from: text, options: options, defaultCurrency: .usd)
        } catch {
            fuzzFailure("the \(name) export of an imported file is refused on import: \(error)", input: input)
        }
        fuzzCheck(rows.map(\.expense) == expenses && rows.allSatisfy(\.idGiven),
                  "the \(name) export of an imported file imports to other expenses", input: input)
    }
}

/// Records read from `text` with `,`, written by CSV.row under a header and read again: the same fields once
/// unguarded (a record of one empty field is an empty line, which CSV.parse skips: left out).
private func checkRecordsRoundTrip(_ text: String, input: UnsafeBufferPointer<UInt8>) {
    guard let records = try? CSV.parse(text) else { return }
    let kept = records.filter { $0.fields != [""] }
    let written = CSV.row(["header"]) + kept.map { CSV.row($0.fields) }.joined()
    let read: [CSVRecord]
    do { read = try CSV.parse(written) } catch {
        fuzzFailure("CSV.row wrote records CSV.parse refuses: \(error)", input: input)
    }
    let fields = read.dropFirst().map { $0.fields.map { Array(CSV.unguardFormula($0).utf8) } }
    fuzzCheck(fields == kept.map { $0.fields.map { Array($0.utf8) } },
              "records written by CSV.row read back differently", input: input)
}
