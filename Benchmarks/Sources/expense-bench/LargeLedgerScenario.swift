import ProcessSpawn
import Foundation
import SQLite

/// The ledger figures on a ledger seeded with `ledgerSize` expenses (1,000,000; 50,000 with --quick):
/// summary latency, first sync into an empty client cache, daemon restart time and memory, bytes on disk.
struct LargeLedgerScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let keys = ["summary_1m_ms", "first_sync_1m_s", "first_sync_1m_peak_mib", "start_1m_s", "start_1m_rss_mib",
                       "disk_bytes_per_expense", "first_sync_1m_tls_s"]
    static let summaryLine = #"{"jsonrpc":"2.0","id":7,"method":"summary","params":{"groupBy":"category"}}"#

    func run(into report: inout BenchReport) {
        let data = workspace.item("data-ledger", directory: true)
        let log = workspace.item("expensed-ledger.log")
        let daemon: DaemonProcess
        do {
            daemon = try DaemonProcess(executable: options.expensed, dataDirectory: data, log: log)
            try seed(daemon)
        } catch {
            progress("ledger: \(error)")
            report.markMissing(Self.keys, "\(error)")
            return
        }
        measureSummary(daemon, into: &report)
        measureFirstSync(port: daemon.port, token: daemon.token, keys: ("first_sync_1m_s", "first_sync_1m_peak_mib"),
                         into: &report)
        let exit = daemon.stop()
        if !exit.succeeded { progress("ledger: expensed stopped with \(exit.description) (expected exit 0)") }
        if options.includes("tls") { measureFirstSyncOverTLS(data: data, log: log, into: &report) }
        measureRestart(data: data, log: log, into: &report)
        measureDisk(data: data, into: &report)
        workspace.remove("data-ledger")
    }

    /// `--seed DIR`: seeds a ledger into `directory` and stops the daemon, keeping the directory.
    static func seedOnly(options: BenchOptions, workspace: Workspace, directory: String) throws(BenchError) {
        let daemon = try DaemonProcess(executable: options.expensed, dataDirectory: directory,
                                       log: directory + "/expensed-seed.log")
        try LargeLedgerScenario(options: options, workspace: workspace).seed(daemon)
        let exit = daemon.stop()
        guard exit.succeeded else { throw .child("expensed stopped with \(exit.description)") }
    }

    /// Pushes `ledgerSize` new expenses, 1,000 per push, from 4 connections.
    private func seed(_ daemon: DaemonProcess) throws(BenchError) {
        let perPush = 1_000
        let pushes = (options.ledgerSize + perPush - 1) / perPush
        let connections = 4
        let token = daemon.token
        let seedBase = UInt64(MonotonicClock.now() * 1000) &+ 77
        let plan = LoadPlan(
            port: daemon.port, connections: connections,
            handshake: { connection, _ throws(BenchError) in try RPCSession.hello(connection, token: token) },
            source: { index, last in
                let share = pushes / connections + (index < pushes % connections ? 1 : 0)
                return PushRoundSource(mutationsPerPush: perPush, lastMutationId: last, pushes: share,
                                       seed: seedBase &+ UInt64(index))
            },
            expect: ThroughputScenario.appliedToken, stop: .exhausted)
        progress("ledger: seeding \(options.ledgerSize) expenses (\(pushes) pushes of \(perPush))")
        let result = try LoadGenerator.run(plan)
        progress("ledger: seeded \(result.operations) in \(BenchReport.format(result.seconds, 1)) s "
                 + "(\(BenchReport.format(result.operationsPerSecond, 0)) mutations/s with 1000-mutation pushes)")
    }

    private func measureSummary(_ daemon: DaemonProcess, into report: inout BenchReport) {
        let outcome = medianOfRuns(options.runs, "summary_1m_ms") { _ throws(BenchError) in
            let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port)
            _ = try RPCSession.hello(connection, token: daemon.token)
            var latencies: [Double] = [] // not money: milliseconds
            for repetition in 0..<(options.summaryRepetitions + 5) {
                let began = MonotonicClock.now()
                let result = try RPCSession.call(connection, Self.summaryLine)
                let elapsed = (MonotonicClock.now() - began) * 1000
                if repetition == 0 {
                    let count = (result["totals"] as? [[String: Any]])?.compactMap { $0["count"] as? Int }.reduce(0, +)
                    guard count == options.ledgerSize else {
                        throw .unexpectedResponse("summary counts \(count.map(String.init) ?? "?") expenses, "
                                                  + "expected \(options.ledgerSize)")
                    }
                }
                if repetition >= 5 { latencies.append(elapsed) }  // the first five warm up
            }
            return ["ms": Statistics.median(latencies) ?? .nan]
        }
        switch outcome {
        case .success(let medians): report.record("summary_1m_ms", medians["ms"])
        case .failure(let error): report.markMissing(["summary_1m_ms"], "\(error)")
        }
    }

    /// The same first sync from the same ledger, served over TLS by a daemon restarted with a certificate from
    /// `expensed tls init`; the client pins it (`EXPENSE_SERVER=tls://…`, `EXPENSE_TLS_PIN`).
    private func measureFirstSyncOverTLS(data: String, log: String, into report: inout BenchReport) {
        do {
            let (daemon, _, pin) = try TLSScenario.startDaemon(options: options, dataDirectory: data,
                                                               tlsDirectory: workspace.item("tls-ledger", directory: true),
                                                               log: log)
            measureFirstSync(port: daemon.port, token: daemon.token, keys: ("first_sync_1m_tls_s", nil),
                             tls: pin, into: &report)
            let exit = daemon.stop()
            if !exit.succeeded { progress("ledger: TLS expensed stopped with \(exit.description) (expected exit 0)") }
        } catch {
            report.markMissing(["first_sync_1m_tls_s"], "\(error)")
        }
    }

    /// `expense sync` into a fresh `EXPENSE_HOME`: wall time and the child's peak RSS (`wait4`); over TLS when `tls`
    /// (the certificate's pin) is given.
    private func measureFirstSync(port: UInt16, token: String, keys: (seconds: String, peak: String?), tls pin: String? = nil,
                                  into report: inout BenchReport) {
        let outcome = medianOfRuns(options.runs, keys.seconds) { run throws(BenchError) in
            let home = workspace.item("home-sync-\(run)", directory: true)
            let output = workspace.item("sync-\(run).out")
            defer {
                workspace.remove("home-sync-\(run)")
                workspace.remove("sync-\(run).out")
            }
            var environment = cleanEnvironment([
                "EXPENSE_HOME": home, "EXPENSE_SERVER": "\(pin == nil ? "" : "tls://")127.0.0.1:\(port)",
                "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": token,
            ])
            if let pin { environment["EXPENSE_TLS_PIN"] = pin }
            let (exit, seconds) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
                try ChildProcess.run(options.expense, ["sync"], environment: environment,
                                     stdout: .file(output), stderr: .file(output), timeout: 600,
                                     samplingPeakEvery: .milliseconds(5))
            }
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            guard exit.succeeded else {
                throw .child("expense sync: \(exit.description): \(text.split(separator: "\n").prefix(2).joined(separator: " | ").prefix(300))")
            }
            if let pulled = Self.number(after: "pulled ", in: text), pulled != options.ledgerSize {
                throw .child("expense sync pulled \(pulled) of \(options.ledgerSize): \(text.prefix(200))")
            }
            // The client's own peak (VmHWM), not ru_maxrss: that one starts at the bench's own resident size.
            guard let peak = exit.ownPeakResidentKiB else { throw .other("no VmHWM read from /proc/PID/status") }
            return ["s": seconds, "peak_mib": Double(peak) / 1024]
        }
        switch outcome {
        case .success(let medians):
            report.record(keys.seconds, medians["s"])
            if let peak = keys.peak { report.record(peak, medians["peak_mib"]) }
        case .failure(let error): report.markMissing([keys.seconds] + (keys.peak.map { [$0] } ?? []), "\(error)")
        }
    }

    /// Restarts the daemon on the seeded data: seconds from its start to the answer of a client's hello (the daemon
    /// opens a ledger when a client first names it, so `listening on` alone says nothing of the ledger), then RSS.
    private func measureRestart(data: String, log: String, into report: inout BenchReport) {
        let outcome = medianOfRuns(options.runs, "start_1m") { _ throws(BenchError) in
            let began = MonotonicClock.now()
            let daemon = try DaemonProcess(executable: options.expensed, dataDirectory: data, log: log)
            let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port)
            _ = try RPCSession.hello(connection, token: daemon.token)
            let answered = MonotonicClock.now() - began
            _ = try RPCSession.call(connection, #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            let rss = daemon.residentMiB()
            let exit = daemon.stop()
            guard exit.succeeded else { throw .child("expensed stopped with \(exit.description)") }
            return ["s": answered, "rss_mib": rss ?? .nan]
        }
        switch outcome {
        case .success(let medians):
            report.record("start_1m_s", medians["s"])
            report.record("start_1m_rss_mib", medians["rss_mib"], missing: "no /proc/PID/status")
        case .failure(let error): report.markMissing(["start_1m_s", "start_1m_rss_mib"], "\(error)")
        }
    }

    /// Copies `default.sqlite` with SQLite's backup API, `VACUUM`s the copy, divides its size by the count.
    private func measureDisk(data: String, into report: inout BenchReport) {
        let source = data + "/default.sqlite"
        let copy = workspace.item("vacuumed.sqlite")
        defer { workspace.remove("vacuumed.sqlite") }
        do {
            guard FileManager.default.fileExists(atPath: source) else {
                report.markMissing(["disk_bytes_per_expense"], "no \(source)")
                return
            }
            try SQLiteConnection(path: source, mode: .readOnly).backup(to: copy)
            do {
                let connection = try SQLiteConnection(path: copy, mode: .readWrite)
                try connection.execute("PRAGMA journal_mode=DELETE")
                try connection.execute("VACUUM")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: copy)
            let bytes = (attributes[.size] as? NSNumber)?.doubleValue ?? .nan
            progress("disk: \(Int(bytes)) bytes after VACUUM for \(options.ledgerSize) expenses")
            report.record("disk_bytes_per_expense", bytes / Double(options.ledgerSize)) // not money: a size ratio
        } catch {
            report.markMissing(["disk_bytes_per_expense"], "\(error)")
        }
    }

    /// The integer after `prefix` in `text`, if any (digit grouping with `,` or `_` is accepted).
    static func number(after prefix: String, in text: String) -> Int? {
        guard let range = text.range(of: prefix) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == "," || $0 == "_") }
        return Int(digits.filter { $0.isNumber })
    }
}
