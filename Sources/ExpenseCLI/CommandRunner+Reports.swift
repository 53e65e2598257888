import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension CommandRunner {
    /// `expense list [--from D] [--to D] [--category C] [--json]`.
    func list() throws {
        let filter = ExpenseFilter(from: try day("from"), to: try day("to"), category: command.option("category"))
        let ledger = try ledger()
        defer { noteUnsynced(ledger) }
        if command.flag("json") {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: .json)
            stream.begin()
            try ledger.forEach(filter) { try stream.write($0) }
            try stream.end()
            return
        }
        let expenses = try ledger.list(filter)
        if expenses.isEmpty {
            console.err("No expenses.")
        } else {
            console.out(ExpenseTable.render(expenses, money: moneyDisplay(ledger)))
        }
    }

    /// `expense summary [--by category|month] [--from D] [--to D] [--category C] [--json]`.
    func summary() throws {
        let grouping: SummaryGrouping
        switch command.option("by") {
        case nil: grouping = .none
        case "category": grouping = .category
        case "month": grouping = .month
        case let other?: throw usage("--by must be category or month, not '\(other)'")
        }
        let query = SummaryQuery(from: try day("from"), to: try day("to"), category: command.option("category"), groupBy: grouping)
        let ledger = try ledger()
        let summary: Summary
        if command.flag("server") {
            var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
            engine.attempts = 2
            var result: Summary?
            try engine.retrying { _ in
                let connection = try SyncConnection(remote: engine.remote, clientId: try ledger.store.clientId() ?? UUID(),
                                                    clientName: nil)
                defer { connection.close() }
                result = try connection.call(SummaryRequest(query: query)).summary
            }
            summary = result ?? Summary(totals: [], groups: [])
        } else {
            summary = try ledger.summary(query)
            noteUnsynced(ledger)
        }
        if command.flag("json") {
            console.out(try ExpenseJSON.summary(summary, groupBy: grouping))
        } else if summary.totals.isEmpty {
            console.err("No expenses.")
        } else {
            console.out(SummaryReport.render(summary, chart: console.isTerminal, grouping: grouping, money: moneyDisplay(ledger)))
        }
    }

    /// Says on standard error (so `--json` output stays clean) when local totals include changes the daemon
    /// has not seen yet. Only once a remote is configured: with no daemon, local totals are the only totals.
    func noteUnsynced(_ ledger: LocalLedger) {
        guard let pending = try? ledger.pendingCount(), pending > 0,
              (try? RemoteConfiguration.resolve(environment: environment, home: home, store: ledger.store)) != nil
        else { return }
        console.err("Note: includes \(pending) unsynced change\(pending == 1 ? "" : "s") (local estimate; `expense summary --server` is the authority).")
    }

    /// `expense export [--format csv|json] [--output FILE]`.
    func export() throws {
        let format = command.option("format") ?? "csv"
        guard format == "csv" || format == "json" else { throw usage("--format must be csv or json, not '\(format)'") }
        let ledger = try ledger()
        guard let output = command.option("output") else {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: format == "json" ? .json : .csv)
            stream.begin()
            try ledger.forEach { try stream.write($0) }
            try stream.end()
            return
        }
        // Written to a temporary file beside the target and renamed over it: the target is whole or untouched.
        let temporary = output + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        let count: Int
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil),
                  let handle = FileHandle(forWritingAtPath: temporary) else {
                throw CommandFailure(.ioError, "Error: cannot write \(output): cannot create \(temporary)")
            }
            defer { try? handle.close() }
            var stream = ExpenseStream(descriptor: handle.fileDescriptor, target: output, format: format == "json" ? .json : .csv)
            stream.begin()
            try ledger.forEach { try stream.write($0) }
            try stream.end()
            try handle.synchronize()
            count = stream.count
            guard rename(temporary, output) == 0 else {
                throw CommandFailure(.ioError, "Error: cannot write \(output): \(String(cString: strerror(errno)))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            if error is CommandFailure || error is StoreError { throw error }
            throw CommandFailure(.ioError, "Error: cannot write \(output): \(error.localizedDescription)")
        }
        console.err("Exported \(count) expense\(count == 1 ? "" : "s") to \(output).")
    }

    /// `expense import FILE [--dry-run]`: all rows or none.
    func importFile() throws {
        let path = command.argument("file") ?? ""
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
        let expenses = try CSVImporter.drafts(from: text, defaultCurrency: try ledger.defaultCurrency())
        let count = "\(expenses.count) expense\(expenses.count == 1 ? "" : "s")"
        if command.flag("dry-run") {
            console.err("Would import \(count) from \(path) (dry run: nothing stored).")
            return
        }
        try ledger.insert(expenses)
        console.err("Imported \(count) from \(path).")
    }
}
