import ProcessSpawn
import Foundation
import SQLite

/// The `disk_history_bytes_per_expense` figure (what keeping every change's history costs on disk): through
/// a real daemon, `historyExpenses` creates (100,000; 20,000 with --quick), then an edit of the note of every
/// fifth expense (20%) and a delete of every twentieth (5%), each change keeping its history entry (Protocol.md
/// §5.8); the ledger file copied and `VACUUM`ed, divided by the expenses created. The same copy with its
/// history removed and vacuumed again gives `disk_history_stripped_bytes_per_expense`, for the ratio. Then the same
/// with one edit of every expense and no delete: `disk_one_edit_bytes_per_expense`.
struct HistoryDiskScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let keys = ["disk_history_bytes_per_expense", "disk_history_stripped_bytes_per_expense", "disk_one_edit_bytes_per_expense"]
    var expenses: Int { options.quick ? 20_000 : 100_000 }
    private static let perPush = 1_000

    /// Which expenses are edited (their note) and deleted after the creates.
    private struct Changes {
        var editEvery: Int
        var deleteEvery: Int?
    }

    func run(into report: inout BenchReport) {
        do {
            let (kept, stripped) = try bytes(after: Changes(editEvery: 5, deleteEvery: 20))
            report.record("disk_history_bytes_per_expense", Double(kept) / Double(expenses)) // not money: a size ratio
            report.record("disk_history_stripped_bytes_per_expense", Double(stripped) / Double(expenses)) // not money
        } catch {
            progress("history: \(error)")
            report.markMissing(Array(Self.keys.prefix(2)), "\(error)")
        }
        do {
            let (kept, _) = try bytes(after: Changes(editEvery: 1, deleteEvery: nil))
            report.record("disk_one_edit_bytes_per_expense", Double(kept) / Double(expenses)) // not money: a size ratio
        } catch {
            progress("history: \(error)")
            report.markMissing(["disk_one_edit_bytes_per_expense"], "\(error)")
        }
    }

    /// The ledger file's bytes after the creates and `changes`, vacuumed, with its history and without.
    private func bytes(after changes: Changes) throws -> (kept: Int, stripped: Int) {
        let data = workspace.item("data-history", directory: true)
        defer { workspace.remove("data-history") }
        let daemon = try DaemonProcess(executable: options.expensed, dataDirectory: data,
                                       log: workspace.item("expensed-history.log"))
        let began = MonotonicClock.now()
        try change(daemon, changes)
        progress("history: \(expenses) creates, \(expenses / changes.editEvery) edits, "
                 + "\(changes.deleteEvery.map { expenses / $0 } ?? 0) deletes in "
                 + "\(BenchReport.format(MonotonicClock.now() - began, 1)) s")
        let exit = daemon.stop()
        guard exit.succeeded else { throw BenchError.child("expensed stopped with \(exit.description)") }
        let (kept, stripped) = try measure(data + "/default.sqlite")
        progress("history: \(kept) bytes after VACUUM, \(stripped) without the history, for \(expenses) expenses")
        return (kept, stripped)
    }

    /// The id of expense `index`: fixed, so the edits and deletes can name it.
    private static func id(_ index: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012x", index)
    }

    /// The creates, then the edits, then the deletes, 1,000 per push on one connection; every one must apply. (A
    /// deleted expense, every twentieth from the second, is one the edits of every fifth left alone.)
    private func change(_ daemon: DaemonProcess, _ changes: Changes) throws(BenchError) {
        let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port)
        var mutationId = try RPCSession.hello(connection, token: daemon.token)
        var mutations: [String] = []
        var requestId = 0
        func flush() throws(BenchError) {
            guard !mutations.isEmpty else { return }
            requestId += 1
            let line = #"{"jsonrpc":"2.0","id":\#(requestId),"method":"push","params":{"mutations":["#
                + mutations.joined(separator: ",") + "]}}"
            let results = try RPCSession.call(connection, line)["results"] as? [[String: Any]] ?? []
            let applied = results.filter { $0["status"] as? String == "applied" }.count
            guard applied == mutations.count else {
                throw .unexpectedResponse("push \(requestId): \(applied) of \(mutations.count) applied: \(results.first { $0["status"] as? String != "applied" } ?? [:])")
            }
            mutations.removeAll(keepingCapacity: true)
        }
        func add(_ mutation: String) throws(BenchError) {
            mutationId += 1
            mutations.append(#"{"mutationId":\#(mutationId),"# + mutation)
            if mutations.count == Self.perPush { try flush() }
        }
        let dates = MutationGenerator.dates.map { String(decoding: $0, as: UTF8.self) }
        for index in 0..<expenses {
            let category = MutationGenerator.categories[index % MutationGenerator.categories.count]
            try add(#""type":"put","id":"\#(Self.id(index))","baseVersion":0,"fields":{"amount":\#(100 + (index &* 7919) % 50_000),"#
                    + #""currency":"USD","category":"\#(category)","date":"\#(dates[index % dates.count])","note":"bench"}}"#)
        }
        try flush()
        for index in stride(from: 0, to: expenses, by: changes.editEvery) {
            try add(#""type":"put","id":"\#(Self.id(index))","baseVersion":1,"fields":{"note":"bench, edited"}}"#)
        }
        try flush()
        if let every = changes.deleteEvery {
            for index in stride(from: 1, to: expenses, by: every) {
                try add(#""type":"delete","id":"\#(Self.id(index))","baseVersion":1}"#)
            }
            try flush()
        }
    }

    /// Bytes of a vacuumed copy of `source`, with its history and without.
    private func measure(_ source: String) throws -> (kept: Int, stripped: Int) {
        let copy = workspace.item("history-vacuumed.sqlite")
        defer { workspace.remove("history-vacuumed.sqlite") }
        try SQLiteConnection(path: source, mode: .readOnly).backup(to: copy)
        let connection = try SQLiteConnection(path: copy, mode: .readWrite)
        try connection.execute("PRAGMA journal_mode=DELETE")
        try connection.execute("VACUUM")
        let kept = try Self.size(copy)
        try connection.execute("DELETE FROM history")
        // Since migration 14 a creation's entry is four columns of its record's row, and an index of the edited: the
        // columns go with the rest of the history. The table is copied without them: set to NULL, each would still
        // cost every row a byte of header, and SQLite's DROP COLUMN leaves rows larger than a copy does.
        let table = try connection.prepare("SELECT name, type FROM pragma_table_info('records') ORDER BY cid")
            .map { (name: $0.text(0), type: $0.text(1)) }
        let creation: Set = ["created_seq", "created_by", "created_client", "created_time"]
        if table.contains(where: { creation.contains($0.name) }) {
            let columns = table.filter { !creation.contains($0.name) }
            let declared = columns.map { $0.name == "seq" ? "seq INTEGER PRIMARY KEY" : "\($0.name) \($0.type)" }
            let names = columns.map(\.name).joined(separator: ", ")
            try connection.execute("""
                CREATE TABLE records_stripped (\(declared.joined(separator: ", ")));
                INSERT INTO records_stripped SELECT \(names) FROM records ORDER BY seq;
                DROP TABLE records;
                ALTER TABLE records_stripped RENAME TO records;
                """)
        }
        try connection.execute("VACUUM")
        return (kept, try Self.size(copy))
    }

    private static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
