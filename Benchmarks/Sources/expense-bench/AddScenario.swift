import ProcessSpawn
import Foundation

/// The `add_100k_ms` figure: `expense add 12.50 food` with `cacheSize` expenses (100,000) already in the local cache.
struct AddScenario {
    let options: BenchOptions
    let workspace: Workspace

    func run(into report: inout BenchReport) {
        let home = workspace.item("home-add", directory: true)
        defer { workspace.remove("home-add") }
        // As a user's EXPENSE_HOME is: the client warns about a directory others may read.
        chmod(home, 0o700)
        let environment = cleanEnvironment(["EXPENSE_HOME": home])
        let log = workspace.item("add.log")
        do {
            let csv = workspace.item("cache.csv")
            try Self.writeCSV(rows: options.cacheSize, to: csv)
            progress("add: importing \(options.cacheSize) expenses into a fresh EXPENSE_HOME")
            let answer = workspace.item("import.out")
            let (imported, seconds) = try ChildProcess.run(options.expense, ["import", csv], environment: environment,
                                                           stdout: .file(answer), stderr: .file(log), timeout: 600)
            guard imported.succeeded else {
                throw BenchError.child("expense import: \(imported.description): \(DaemonProcess.tail(of: log, lines: 2))")
            }
            // A client without `import` may still exit 0; only a confirmed count makes the cache real. `import`
            // prints `N new, M already present, K differing` (`expense import --help`).
            let said = (try? String(contentsOfFile: answer, encoding: .utf8)) ?? ""
            guard Self.newCount(in: said) == options.cacheSize else {
                throw BenchError.child("expense import did not confirm \(options.cacheSize) new expenses: "
                                       + DaemonProcess.tail(of: answer, lines: 2) + " " + DaemonProcess.tail(of: log, lines: 2))
            }
            progress("add: imported in \(BenchReport.format(seconds, 2)) s")
        } catch {
            report.markMissing(["add_100k_ms"], "\(error)")
            return
        }
        let outcome = medianOfRuns(options.runs, "add_100k_ms") { _ throws(BenchError) in
            var times: [Double] = [] // not money: a measurement
            for _ in 0..<options.addRepetitions {
                let (exit, seconds) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
                    try ChildProcess.run(options.expense, ["add", "12.50", "food"], environment: environment,
                                         stdout: .discard, stderr: .file(log), timeout: 60)
                }
                guard exit.succeeded else {
                    throw .child("expense add: \(exit.description): \(DaemonProcess.tail(of: log, lines: 2))")
                }
                times.append(seconds * 1000)
            }
            return ["ms": Statistics.median(times) ?? .nan]
        }
        switch outcome {
        case .success(let medians): report.record("add_100k_ms", medians["ms"])
        case .failure(let error): report.markMissing(["add_100k_ms"], "\(error)")
        }
    }

    /// N of `import`'s `N new, M already present, K differing`, or nil.
    static func newCount(in text: String) -> Int? {
        guard let range = text.range(of: " new,") else { return nil }
        return Int(text[..<range.lowerBound].split(whereSeparator: { !$0.isNumber }).last ?? "")
    }

    /// Writes `date,amount,currency,category,note` rows with varied, valid values.
    static func writeCSV(rows: Int, to path: String) throws(BenchError) {
        var text = "date,amount,currency,category,note\n"
        text.reserveCapacity(rows * 40 + 64)
        for row in 0..<rows {
            let date = String(decoding: MutationGenerator.dates[row % MutationGenerator.dates.count], as: UTF8.self)
            let cents = 100 + (row &* 7919) % 50_000
            let amount = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
            let category = MutationGenerator.categories[row % MutationGenerator.categories.count]
            text += "\(date),\(amount),USD,\(category),bench row \(row)\n"
        }
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw .other("cannot write \(path): \(error)")
        }
    }
}
