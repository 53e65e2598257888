import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation
import SystemKit

extension ExpenseRunner {
    /// `expense export [--format csv|json] [--output FILE]`: every live expense with its id. On a damaged cache it
    /// saves what it can read (``CacheSalvage``, never writing to the cache) and says how many rows it could not.
    func export() throws {
        let kind: ExpenseStream.Format = try command.value(ExpenseOptions.exportFormat) == .json ? .json : .csv
        guard let output = command[ExpenseOptions.output] else {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: kind)
            stream.begin()
            // What went out before damage was met, so that the salvage does not write it twice.
            var written: [UUID] = []
            do {
                let ledger = try readingLedger()
                try ledger.forEach { expense in
                    try stream.write(expense)
                    written.append(expense.id)
                }
            } catch StoreError.damaged(let path, let reason) {
                let salvage = CacheSalvage.read(home)
                let seen = Set(written)
                for expense in salvage.expenses where !seen.contains(expense.id) { try stream.write(expense) }
                try stream.end()
                try tell(salvage, exported: stream.count, to: "standard output", cache: path, damage: reason)
                return
            }
            try stream.end()
            return
        }
        do {
            let ledger = try readingLedger()
            let count = try exportFile(output, kind) { stream in try ledger.forEach { try stream.write($0) } }
            console.err("Exported \(count) expense\(count == 1 ? "" : "s") to \(output).")
        } catch StoreError.damaged(let path, let reason) {
            let salvage = CacheSalvage.read(home)
            let count = try exportFile(output, kind) { stream in for expense in salvage.expenses { try stream.write(expense) } }
            try tell(salvage, exported: count, to: output, cache: path, damage: reason)
        }
    }

    /// Writes `body`'s expenses to `output`, whole or untouched, mode 0600 like the cache (an export holds the same
    /// data); returns how many were written.
    private func exportFile(_ output: String, _ kind: ExpenseStream.Format, _ body: (inout ExpenseStream) throws -> Void) throws -> Int {
        do {
            return try AtomicFile.replace(output) { descriptor in
                var stream = ExpenseStream(descriptor: descriptor, target: output, format: kind)
                stream.begin()
                try body(&stream)
                try stream.end()
                return stream.count
            }
        } catch let failure as AtomicFile.Failure {
            throw CommandFailure(.ioError, "Error: write_failed: \(failure)")
        }
    }

    /// After the export of a damaged cache: a warning when nothing stored is missing (exit 0), else
    /// `partial_export` (exit 74) saying how many rows could not be read.
    private func tell(_ salvage: CacheSalvage, exported count: Int, to target: String, cache path: String, damage: String) throws {
        let exported = "exported \(count) expense\(count == 1 ? "" : "s") to \(target)"
        let damaged = "the cache \(path) is damaged (\(DisplayText.escaped(damage))) and was not changed"
        guard salvage.isPartial else {
            console.err("Warning: \(damaged); every row could still be read: \(exported).")
            return
        }
        let lost = salvage.unreadable.map { "\($0) rows of the damaged cache could not be read" }
            ?? "some rows of the damaged cache could not be read"
        let detail = salvage.detail.isEmpty ? "" : " (\(salvage.detail))"
        throw CommandFailure(.ioError, "Error: partial_export: \(exported); \(lost)\(detail); \(damaged). Move it aside: "
                             + "`expense sync` then fetches the synced expenses again, and `expense import` brings back the saved ones.")
    }

    /// `expense import FILE [--dry-run] [--format csv|json] [--map …] [--currency C] [--delimiter D]
    /// [--decimal-comma] [--date-format F]`: every valid row whose id is new, or nothing if any row is invalid.
    /// Prints `N new, M already present, K differing`; each differing row is named on standard error.
    func importFile() throws {
        let options = try importOptions()
        let path = command[ExpenseArguments.file] ?? ""
        let data: Data?
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data, let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure(.ioError, "Error: cannot read \(path): " +
                (data == nil ? "no such file or permission denied" : "it is not UTF-8 text"))
        }
        let ledger = try ledger()
        let format = options.format(of: Substring(text))
        if format == .json, options.columns != nil || options.decimalComma || options.dateFormat != nil || options.delimiter != "," {
            throw usage("--map, --delimiter, --decimal-comma and --date-format are for CSV files, and \(path) is JSON")
        }
        let defaultCurrency = try options.currency ?? ledger.defaultCurrency()
        let rows = format == .json
            ? try JSONImporter.rows(from: text, defaultCurrency: defaultCurrency)
            : try CSVImporter.rows(from: text, options: options, defaultCurrency: defaultCurrency)
        let dryRun = command[ExpenseOptions.dryRun]
        let outcome = try ledger.importRows(rows, dryRun: dryRun)
        for (row, stored) in outcome.differing.prefix(ImportError.shownProblems) {
            console.err("\(format == .json ? "item" : "line") \(row.line): \(row.expense.idString.prefix(8)) differs from the stored expense: "
                        + Self.differences(row.expense, stored))
        }
        if outcome.differing.count > ImportError.shownProblems {
            console.err("… and \(outcome.differing.count - ImportError.shownProblems) more differing rows")
        }
        console.out(outcome.counts + "\n")
        if dryRun {
            console.err("Dry run: nothing stored.")
        } else if !outcome.differing.isEmpty {
            console.err("Rows that differ were not imported: the stored expenses are kept (edit them, or remove the rows).")
        }
    }

    /// The options of `import`, checked (usage errors name the option).
    private func importOptions() throws -> ImportOptions {
        var options = ImportOptions()
        do {
            options.format = try command.value(ExpenseOptions.importFormat)
            options.columns = try command[ExpenseOptions.map].map(ImportOptions.columns(fromMap:))
            options.delimiter = try command[ExpenseOptions.delimiter].map(ImportOptions.delimiter(from:)) ?? ","
            options.dateFormat = try command[ExpenseOptions.dateFormat].map(ImportDateFormat.init)
        } catch let error as ImportOptionError {
            throw usage(error.description)
        }
        options.decimalComma = command[ExpenseOptions.decimalComma]
        options.currency = try command.value(ExpenseFieldOptions.currency)
        return options
    }

    /// `amount 12.50 USD here, 13.00 USD stored; note 'a' here, 'b' stored`, or `deleted here`.
    static func differences(_ row: Expense, _ stored: LocalRecord) -> String {
        if stored.deleted { return "it is deleted here (an import does not restore it)" }
        let old = stored.expense
        var parts: [String] = []
        // Each conflict group that differs, both values whole; text in quotes, money and dates as they read.
        for group in ExpenseField.conflictGroups where !group.conflictGroup.allSatisfy({ $0.same(row, old) }) {
            func shown(_ expense: Expense) -> String {
                let text = ExpenseTable.oneLine(group.text(of: expense), width: 30)
                return group == .amount || group == .date ? text : "'\(text)'"
            }
            parts.append("\(group.rawValue) \(shown(row)) here, \(shown(old)) stored")
        }
        return parts.joined(separator: "; ")
    }
}
