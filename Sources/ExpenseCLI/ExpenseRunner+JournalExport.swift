import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

extension ExpenseRunner {
    /// `expense export --format hledger|beancount [--expenses-account ROOT] [--assets-account NAME] [--output FILE]`:
    /// every live expense and recorded transfer as a balanced transaction (``JournalExport``), by date then id.
    /// The account options are checked against the format first (a usage error, exit 64, naming what the format
    /// cannot hold). Unlike CSV and JSON, a journal is not saved from a damaged cache: without its transfers and
    /// members its balances would be wrong, so the damage is reported instead.
    func exportJournal(_ format: JournalFormat) throws {
        let expensesRoot = command[ExpenseOptions.expensesAccount] ?? "Expenses"
        let assets = command[ExpenseOptions.assetsAccount] ?? "Assets:Cash"
        if let reason = JournalAccountNames.refusal(format: format, expensesRoot: expensesRoot, assets: assets) {
            throw usage(reason)
        }
        let ledger = try readingLedger()
        var expenses: [Expense] = []
        try ledger.forEach { expenses.append($0) }
        // Transfers and members live in the SQLite cache only; the JSON file keeps neither.
        let transfers = try ledger.dataCache.map(Self.transfers) ?? []
        let members = MemberDirectory(members: try memberNames(ledger).members)
        // The ledger's exchange rates, as price directives (P in hledger, price in Beancount).
        let prices = try ledger.dataCache.map(Self.exchangeRates)?.compactMap { rate in
            JournalPrice(date: rate.date, from: rate.from, to: rate.to, rate: rate.rate.description)
        } ?? []
        let journal = try JournalExport(expenses: expenses, transfers: transfers, prices: prices, ledgerCurrency: try ledger.ledgerCurrency(),
                                        names: members.name)
        let names = JournalAccountNames(format: format, expensesRoot: expensesRoot, assets: assets,
                                        accounts: journal.accounts, memberName: members.name)
        func write(to descriptor: Int32, target: String) throws {
            var output = BufferedOutput(descriptor: descriptor, target: target)
            switch format {
            case .hledger: try journal.writeHledger(names: names) { try output.append($0) }
            case .beancount: try journal.writeBeancount(names: names) { try output.append($0) }
            }
            try output.flush()
        }
        guard let file = command[ExpenseOptions.output] else {
            return try write(to: STDOUT_FILENO, target: "standard output")
        }
        try replaceExportFile(file) { try write(to: $0, target: file) }
        let plural = { (count: Int, noun: String) in "\(count) \(noun)\(count == 1 ? "" : "s")" }
        console.err("Exported \(plural(expenses.count, "expense")) and \(plural(transfers.count, "transfer")) to \(file).")
    }
}

/// Text written to a descriptor through a 64 KiB buffer, so a journal of 100,000 expenses is never one string.
private struct BufferedOutput {
    let descriptor: Int32
    /// A file name or "standard output", for the error message.
    let target: String
    private var buffer: [UInt8] = []

    init(descriptor: Int32, target: String) {
        self.descriptor = descriptor
        self.target = target
        buffer.reserveCapacity(ExpenseStream.flushSize + 4096)
    }

    mutating func append(_ text: String) throws(CommandFailure) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= ExpenseStream.flushSize { try flush() }
    }

    /// - Throws: ``CommandFailure`` (exit 74) when the output cannot be written, such as a closed pipe.
    mutating func flush() throws(CommandFailure) {
        guard !buffer.isEmpty else { return }
        if let error = Console.write(descriptor, buffer) {
            throw CommandFailure(.ioError, Console.writeFailure(target, error))
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
