import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation
import SystemKit

extension ExpenseRunner {
    /// `expense export [--format csv|json] [--output FILE]`: every live expense with its id. On a damaged cache it
    /// saves what it can read (``CacheSalvage``, never writing to the cache) and says how many rows it could not.
    /// `--format hledger|beancount` writes a journal instead (``exportJournal(_:)``).
    func export() throws {
        let format = try command.value(ExpenseOptions.exportFormat) ?? .csv
        if case .journal(let journal) = format { return try exportJournal(journal) }
        if command.has(ExpenseOptions.expensesAccount) || command.has(ExpenseOptions.assetsAccount) {
            throw usage("--expenses-account and --assets-account are for --format hledger or beancount")
        }
        let kind: ExpenseStream.Format = format == .json ? .json : .csv
        // The members' names for a shared expense's `shares` (JSON); none from a cache that cannot be read.
        let members = MemberDirectory(members: (try? ledger(readOnly: true)).flatMap { try? memberNames($0).members } ?? [])
        guard let output = command[ExpenseOptions.output] else {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: kind, members: members)
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
            let count = try exportFile(output, kind, members: members) { stream in try ledger.forEach { try stream.write($0) } }
            console.err("Exported \(count) expense\(count == 1 ? "" : "s") to \(output).")
        } catch StoreError.damaged(let path, let reason) {
            let salvage = CacheSalvage.read(home)
            let count = try exportFile(output, kind, members: members) { stream in
                for expense in salvage.expenses { try stream.write(expense) }
            }
            try tell(salvage, exported: count, to: output, cache: path, damage: reason)
        }
    }

    /// Writes `body`'s expenses to `output`, whole or untouched, mode 0600 like the cache (an export holds the same
    /// data); returns how many were written.
    private func exportFile(_ output: String, _ kind: ExpenseStream.Format, members: MemberDirectory,
                            _ body: (inout ExpenseStream) throws -> Void) throws -> Int {
        try replaceExportFile(output) { descriptor in
            var stream = ExpenseStream(descriptor: descriptor, target: output, format: kind, members: members)
            stream.begin()
            try body(&stream)
            try stream.end()
            return stream.count
        }
    }

    /// Replaces `output` with what `body` writes to the descriptor it is given: whole, or not at all (the file is
    /// untouched when anything fails), mode 0600 like the cache (an export holds the same data).
    /// - Throws: `write_failed` (exit 74) when the file cannot be written; what `body` throws.
    func replaceExportFile<Result>(_ output: String, _ body: (Int32) throws -> Result) throws -> Result {
        do {
            return try AtomicFile.replace(output, body)
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
    /// [--decimal-comma] [--date-format F] [--rules|--no-rules]`: every valid row whose id is new, or nothing if
    /// any row is invalid, each row first changed by the ledger's rules (``runRules(_:on:unit:)``). Prints
    /// `N new, M already present, K differing` (and `; R changed by rules` when rules ran); each differing row is
    /// named on standard error; a dry run with rules shows every row and which rules changed it.
    func importFile() throws {
        var options = try importOptions()
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
        options.members = try memberNames(ledger).members
        let format = options.format(of: Substring(text))
        if format == .splitwise {
            if command[ExpenseOptions.rules] { throw usage("--rules is for CSV and JSON files; a Splitwise export is imported as it is") }
            return try importSplitwise(text, into: ledger, options: options)
        }
        if format == .json, options.columns != nil || options.decimalComma || options.dateFormat != nil || options.delimiter != "," {
            throw usage("--map, --delimiter, --decimal-comma and --date-format are for CSV files, and \(path) is JSON")
        }
        let defaultCurrency = try options.currency ?? ledger.defaultCurrency()
        var rows = format == .json
            ? try JSONImporter.rows(from: text, defaultCurrency: defaultCurrency)
            : try CSVImporter.rows(from: text, options: options, defaultCurrency: defaultCurrency)
        let dryRun = command[ExpenseOptions.dryRun]
        let rules = try importRulesToRun(ledger)
        let ruled = try Self.runRules(rules, on: &rows, unit: format == .json ? "item" : "line")
        // A shared row's members must be this ledger's, and not have left, when it is new (the daemon's rule).
        if rows.contains(where: { $0.expense.paidBy != nil || $0.expense.split != nil }) {
            let new = try ledger.importRows(rows, dryRun: true).new
            let problems = ImportRow.memberProblems(in: new, members: options.members,
                                                    unit: format == .json ? "item" : "line")
            guard problems.isEmpty else {
                throw ImportError.invalidRows(Array(problems.prefix(ImportError.shownProblems)), total: problems.count)
            }
        }
        let outcome = try ledger.importRows(rows, dryRun: dryRun)
        let ledgerCurrency = try? ledger.ledgerCurrency()
        tellDiffering(outcome.differing.map { ($0.row.line, Self.differences($0.row.expense, $0.stored, names: MemberDirectory(members: options.members),
                                                                              ledgerCurrency: ledgerCurrency), $0.row.expense.idString) },
                      unit: format == .json ? "item" : "line", kind: "expense")
        if dryRun && !rules.isEmpty {
            let names = MemberDirectory(members: options.members)
            for (row, ran) in zip(rows, ruled) {
                console.out(RuleDisplay.preview(ran.original, ran.outcome, names: names, lead: "\(format == .json ? "item" : "line") \(row.line)") + "\n")
            }
        }
        let changed = ruled.filter { !$0.outcome.changedBy.isEmpty }.count
        console.out(outcome.counts + (rules.isEmpty ? "" : "; \(changed) changed by rules") + "\n")
        if dryRun {
            console.err("Dry run: nothing stored.")
        } else if !outcome.differing.isEmpty {
            console.err("Rows that differ were not imported: the stored expenses are kept (edit them, or remove the rows).")
        }
    }

    /// Runs `rules` on each row in place (its id, derived from the file's values, is kept, so a file imported
    /// again with the same rules gives the same expenses); the `text` field reads the row as the file gave it. Returns each row as read and what the rules did, in the rows' order.
    /// - Throws: `CommandFailure` (exit 65) naming the row when a rule makes an invalid expense: nothing is stored.
    private static func runRules(_ rules: [ImportRule], on rows: inout [ImportRow], unit: String) throws
        -> [(original: Expense, outcome: RuleOutcome)] {
        guard !rules.isEmpty else { return [] }
        var results: [(original: Expense, outcome: RuleOutcome)] = []
        for index in rows.indices {
            let original = rows[index].expense
            do throws(ImportRuleError) {
                let outcome = try ImportRule.run(rules, on: original)
                rows[index].expense = outcome.expense
                results.append((original, outcome))
            } catch {
                throw CommandFailure(.dataError, "Error: \(error.code): \(unit) \(rows[index].line): \(error.message); nothing was imported")
            }
        }
        return results
    }

    /// `expense import --format splitwise FILE [--dry-run]`: Splitwise's CSV export (``SplitwiseImporter``). Every
    /// row is validated first, and a member who has left this ledger refused in a new expense, so that nothing is
    /// stored when anything is refused. Then the members the file names that the ledger does not have are added
    /// (each said on standard error), the new expenses imported as `import` imports rows (one journal entry), and
    /// the new payments recorded as transfers. Ids are derived from the file, so a second import adds nothing.
    /// Prints `N new, M already present, K differing; transfers: N new, M already present, K differing`.
    ///
    /// The three kinds are stored one after the other, not in one transaction: if storing fails midway, what was
    /// stored is what the file holds, and importing the file again adds the rest.
    private func importSplitwise(_ text: String, into ledger: LocalLedger, options: ImportOptions) throws {
        if options.columns != nil || options.decimalComma || options.dateFormat != nil || options.delimiter != "," || options.currency != nil {
            throw usage("--map, --delimiter, --decimal-comma, --date-format and --currency are for CSV files; "
                        + "a Splitwise export names its own columns and currencies")
        }
        let data = try LedgerDataCache(store: ledger.store)
        let plan = try SplitwiseImporter.read(text, members: Self.members(data))
        let preview = try ledger.importRows(plan.expenses, dryRun: true)
        let left = plan.leftMemberProblems(in: preview.new)
        guard left.isEmpty else { throw ImportError.invalidRows(Array(left.prefix(ImportError.shownProblems)), total: left.count) }
        var newTransfers: [SplitwiseTransfer] = []
        var presentTransfers = 0
        var differingTransfers: [(line: Int, text: String, id: String)] = []
        for item in plan.transfers {
            let id = UUIDText.lowercased(item.transfer.id)
            guard let stored = try data.record(id: item.transfer.id) else { newTransfers.append(item); continue }
            if stored.deleted {
                differingTransfers.append((item.line, "it is deleted here (an import does not restore it)", id))
            } else if let kept = try? LedgerDataValidator.transfer(id: stored.id, fields: stored.fields), kept == item.transfer {
                presentTransfers += 1
            } else {
                differingTransfers.append((item.line, "the stored record holds other values", id))
            }
        }
        for warning in plan.warnings { console.err("Warning: \(warning)") }
        let dryRun = command[ExpenseOptions.dryRun]
        var outcome = preview
        if dryRun {
            for member in plan.newMembers { console.err("Would add member \(DisplayText.quoted(member.name))") }
        } else {
            for member in plan.newMembers {
                try ledger.put(.member, id: member.id, fields: member.fields)
                console.err("Added member \(DisplayText.quoted(member.name))")
            }
            outcome = try ledger.importRows(plan.expenses)
            for item in newTransfers { try ledger.put(.transfer, id: item.transfer.id, fields: item.transfer.fields) }
        }
        let ledgerCurrency = try? ledger.ledgerCurrency()
        tellDiffering(outcome.differing.map { ($0.row.line, Self.differences($0.row.expense, $0.stored, names: MemberDirectory(members: options.members),
                                                                              ledgerCurrency: ledgerCurrency), $0.row.expense.idString) },
                      unit: "line", kind: "expense")
        tellDiffering(differingTransfers, unit: "line", kind: "transfer")
        console.out(outcome.counts + "; transfers: \(newTransfers.count) new, \(presentTransfers) already present, "
                    + "\(differingTransfers.count) differing\n")
        if dryRun {
            console.err("Dry run: nothing stored.")
        } else if !outcome.differing.isEmpty || !differingTransfers.isEmpty {
            console.err("Rows that differ were not imported: the stored records are kept (edit them, or remove the rows).")
        }
    }

    /// Names each differing row (the first 50) on standard error: `line 4: 1a2b3c4d differs from the stored expense: …`.
    private func tellDiffering(_ rows: [(line: Int, text: String, id: String)], unit: String, kind: String) {
        for row in rows.prefix(ImportError.shownProblems) {
            console.err("\(unit) \(row.line): \(row.id.prefix(8)) differs from the stored \(kind): \(row.text)")
        }
        if rows.count > ImportError.shownProblems {
            console.err("… and \(rows.count - ImportError.shownProblems) more differing rows")
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
    static func differences(_ row: Expense, _ stored: LocalRecord, names: MemberDirectory, ledgerCurrency: Currency? = nil) -> String {
        if stored.deleted { return "it is deleted here (an import does not restore it)" }
        let old = stored.expense
        var parts: [String] = []
        // Each conflict group that differs, both values whole; text in quotes, money and dates as they read.
        for group in ExpenseField.conflictGroups where !group.conflictGroup.allSatisfy({ $0.same(row, old) }) {
            func shown(_ expense: Expense) -> String {
                let text = ExpenseTable.oneLine(group.text(of: expense, names: names.name, ledgerCurrency: ledgerCurrency), width: 30)
                return group == .amount || group == .date ? text : "'\(text)'"
            }
            parts.append("\(group.rawValue) \(shown(row)) here, \(shown(old)) stored")
        }
        return parts.joined(separator: "; ")
    }
}
