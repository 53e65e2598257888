import ExpenseCore
import Foundation
import ProcessSpawn

/// `Scripts/bench --ledgers N` (docs/performance.md, "Many ledgers on one daemon"): N ledgers made one by one with
/// `expensed ledger add` (the last adds, with about N present, show whether one more costs the same as the
/// first), then a daemon with the default bounds started on them (its start time and memory), then two rounds of
/// a `hello` and a 1-mutation push to every ledger, each over a fresh connection closed after it: per-push
/// latency, the round's duration, and the daemon's memory, threads and descriptors after it. Sequential on
/// purpose: it measures what a ledger costs, not throughput.
struct HostedScenario {
    let options: BenchOptions
    let workspace: Workspace
    let ledgers: Int

    func run(into report: inout BenchReport) {
        do {
            try measure(into: &report)
        } catch {
            report.markMissing(Figure.hosted.map(\.key), "\(error)")
        }
    }

    private func measure(into report: inout BenchReport) throws(BenchError) {
        let data = workspace.item("hosted-data", directory: true)
        defer { workspace.remove("hosted-data") }
        let log = workspace.item("hosted.log")
        let names = (0..<ledgers).map { "h\($0)" }
        var addSeconds: [Double] = [] // not money: a measurement
        let began = MonotonicClock.now()
        for (index, name) in names.enumerated() {
            let (exit, seconds) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
                try ChildProcess.run(options.expensed, ["ledger", "add", name, "--data", data],
                                     environment: ProcessInfo.processInfo.environment, stdout: .discard, stderr: .file(log),
                                     timeout: 60)
            }
            guard exit.succeeded else { throw .child("expensed ledger add: \(exit.description): \(DaemonProcess.tail(of: log))") }
            addSeconds.append(seconds)
            if (index + 1) % 1000 == 0 { progress("hosted: \(index + 1) of \(ledgers) ledgers made") }
        }
        report.record("hosted_ledgers_per_s", Double(ledgers) / (MonotonicClock.now() - began))
        report.record("hosted_first_adds_ms", Statistics.median(Array(addSeconds.prefix(50))).map { $0 * 1000 })
        report.record("hosted_ledger_add_ms", Statistics.median(Array(addSeconds.suffix(50))).map { $0 * 1000 })
        var tokens: [String: String] = [:]
        for name in names {
            tokens[name] = (try? String(contentsOfFile: data + "/\(name).token", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        // `default` is not made: the directory has ledgers. The bench's daemon reads its token, so give it one.
        try? (tokens[names[0]] ?? "").write(toFile: data + "/default.token", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(executable: options.expensed, dataDirectory: data, log: log)
        defer { _ = daemon.stop() }
        report.record("hosted_start_ms", daemon.startSeconds * 1000)
        report.record("hosted_start_rss_mib", daemon.residentMiB())
        for round in 1...2 {
            progress("hosted: round \(round), a hello and a push to each of \(ledgers) ledgers")
            var latencies: [Double] = [] // not money: a measurement
            let roundBegan = MonotonicClock.now()
            for name in names {
                let pushBegan = MonotonicClock.now()
                let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port)
                _ = try RPCSession.hello(connection, token: tokens[name] ?? "", ledger: name)
                _ = try RPCSession.call(connection, Self.pushLine())
                latencies.append((MonotonicClock.now() - pushBegan) * 1000)
            }
            let prefix = round == 1 ? "hosted_cold" : "hosted_again"
            report.record("\(prefix)_round_s", MonotonicClock.now() - roundBegan)
            report.record("\(prefix)_p50_ms", Statistics.median(latencies))
            report.record("\(prefix)_p99_ms", Statistics.percentile(latencies, 99))
        }
        report.record("hosted_rss_mib", daemon.residentMiB())
        report.record("hosted_peak_rss_mib", Self.status("VmHWM:", of: daemon.child.pid).map { Double($0) / 1024 })
        report.record("hosted_threads", Self.status("Threads:", of: daemon.child.pid).map(Double.init))
        report.record("hosted_descriptors", (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.child.pid)/fd"))
            .map { Double($0.count) })
    }

    /// A push of one new expense.
    private static func pushLine() -> String {
        let mutation = #"{"mutationId":1,"type":"put","id":"\#(UUIDText.lowercased(UUID()))","baseVersion":0,"#
            + #""fields":{"amount":1250,"currency":"USD","category":"food","date":"2026-12-05","note":""}}"#
        return #"{"jsonrpc":"2.0","id":1,"method":"push","params":{"mutations":[\#(mutation)]}}"#
    }

    /// The number of a `/proc/PID/status` line such as `Threads:`.
    private static func status(_ field: String, of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        return Int(line.dropFirst(field.count).split(whereSeparator: \.isWhitespace).first ?? "")
    }
}
