import ExpenseCore
import Foundation
import ProcessSpawn

/// `Scripts/bench --ledgers N` (docs/performance.md, "Many ledgers on one daemon"): N ledgers made one by one with
/// `expensed ledger add` (the last adds, with about N present, show whether one more costs the same as the
/// first), then daemons with the default bounds started on them (their start time and memory), then two rounds of
/// a `hello` and a 1-mutation push to every ledger, each over a fresh connection closed after it: per-push
/// latency, the round's duration, and the daemon's memory, threads and descriptors after it. Sequential on
/// purpose: it measures what a ledger costs, not throughput.
///
/// The `hosted` section does it on a data directory with one daemon; `hosted-pg` on a throwaway PostgreSQL cluster
/// of `max_connections=100` with two daemons, the rounds alternating between them (ledger i goes to daemon i mod 2
/// in the first round and to the other in the second, so each daemon serves every ledger), counting the backends
/// each daemon holds.
struct HostedScenario {
    let options: BenchOptions
    let workspace: Workspace
    let ledgers: Int
    let store: Store

    enum Store {
        case directory
        case postgres

        /// The prefix of this store's figure keys.
        var prefix: String { self == .directory ? "hosted_" : "hosted_pg_" }
    }

    /// The PostgreSQL cluster's `max_connections`: fewer than the ledgers, as the issue that brought the pool set.
    static let postgresMaxConnections = 100

    func run(into report: inout BenchReport) {
        let keys = Figure.hosted(store).map(\.key)
        do {
            switch store {
            case .directory:
                try measure(into: &report, postgres: nil)
            case .postgres:
                let cluster = try BenchPostgresCluster(maxConnections: Self.postgresMaxConnections)
                defer { cluster.stop() }
                progress("hosted-pg: a durable throwaway cluster at \(cluster.conninfo), max_connections=\(Self.postgresMaxConnections)")
                try measure(into: &report, postgres: cluster.conninfo)
            }
        } catch {
            report.markMissing(keys, "\(error)")
        }
    }

    private func measure(into report: inout BenchReport, postgres: String?) throws(BenchError) {
        let section = postgres == nil ? "hosted" : "hosted-pg"
        let key = store.prefix
        let data = workspace.item("\(section)-data", directory: true)
        defer { workspace.remove("\(section)-data") }
        let log = workspace.item("\(section).log")
        let names = (0..<ledgers).map { "h\($0)" }
        var addSeconds: [Double] = [] // not money: a measurement
        var tokens: [String: String] = [:]
        let began = MonotonicClock.now()
        for (index, name) in names.enumerated() {
            let tokenFile = workspace.item("\(section)-token")
            try? FileManager.default.removeItem(atPath: tokenFile) // stdout's file is appended to
            let place = postgres.map { ["--postgres", $0] } ?? ["--data", data]
            let (exit, seconds) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
                try ChildProcess.run(options.expensed, ["ledger", "add", name] + place,
                                     environment: ProcessInfo.processInfo.environment, stdout: .file(tokenFile),
                                     stderr: .file(log), timeout: 60)
            }
            guard exit.succeeded else { throw .child("expensed ledger add: \(exit.description): \(DaemonProcess.tail(of: log))") }
            addSeconds.append(seconds)
            // A data directory keeps each token in NAME.token; PostgreSQL's `ledger add` prints it.
            let tokenPath = postgres == nil ? data + "/\(name).token" : tokenFile
            tokens[name] = (try? String(contentsOfFile: tokenPath, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if (index + 1) % 1000 == 0 { progress("\(section): \(index + 1) of \(ledgers) ledgers made") }
        }
        report.record(key + "ledgers_per_s", Double(ledgers) / (MonotonicClock.now() - began))
        report.record(key + "first_adds_ms", Statistics.median(Array(addSeconds.prefix(50))).map { $0 * 1000 })
        report.record(key + "ledger_add_ms", Statistics.median(Array(addSeconds.suffix(50))).map { $0 * 1000 })

        // `default` is not made: the directory has ledgers. The bench's daemon reads its token, so give it one.
        try? (tokens[names[0]] ?? "").write(toFile: data + "/default.token", atomically: true, encoding: .utf8)
        var daemons: [DaemonProcess] = []
        defer { for daemon in daemons { _ = daemon.stop() } }
        for index in 0..<(postgres == nil ? 1 : 2) {
            daemons.append(try DaemonProcess(executable: options.expensed, dataDirectory: data,
                                             log: workspace.item("\(section)-daemon\(index).log"),
                                             postgres: postgres.map { ($0, tokens[names[0]] ?? "") }))
        }
        report.record(key + "start_ms", daemons.map(\.startSeconds).max().map { $0 * 1000 })
        report.record(key + "start_rss_mib", daemons.compactMap { $0.residentMiB() }.max())
        let postgresPort = postgres.flatMap(Self.port(in:))
        var backendsPeak = 0
        for round in 1...2 {
            progress("\(section): round \(round), a hello and a push to each of \(ledgers) ledgers")
            var latencies: [Double] = [] // not money: a measurement
            let roundBegan = MonotonicClock.now()
            for (index, name) in names.enumerated() {
                let daemon = daemons[(index + round - 1) % daemons.count]
                let pushBegan = MonotonicClock.now()
                let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port)
                _ = try RPCSession.hello(connection, token: tokens[name] ?? "", ledger: name)
                _ = try RPCSession.call(connection, Self.pushLine())
                latencies.append((MonotonicClock.now() - pushBegan) * 1000)
                if let postgresPort, index % 100 == 0 {
                    backendsPeak = max(backendsPeak, daemons.map { Self.connections(of: $0.child.pid, toPort: postgresPort) }.max() ?? 0)
                }
            }
            let prefix = key + (round == 1 ? "cold" : "again")
            report.record("\(prefix)_round_s", MonotonicClock.now() - roundBegan)
            report.record("\(prefix)_p50_ms", Statistics.median(latencies))
            report.record("\(prefix)_p99_ms", Statistics.percentile(latencies, 99))
        }
        report.record(key + "rss_mib", daemons.compactMap { $0.residentMiB() }.max())
        report.record(key + "peak_rss_mib", daemons.compactMap { Self.status("VmHWM:", of: $0.child.pid) }.max().map { Double($0) / 1024 })
        report.record(key + "threads", daemons.compactMap { Self.status("Threads:", of: $0.child.pid) }.max().map(Double.init))
        report.record(key + "descriptors", daemons.compactMap { daemon in
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.child.pid)/fd")).map(\.count)
        }.max().map(Double.init))
        if postgres != nil { report.record(key + "backends_peak", Double(backendsPeak)) }
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

    /// The `port=` of a libpq keyword/value string.
    private static func port(in conninfo: String) -> UInt16? {
        conninfo.split(separator: " ").first { $0.hasPrefix("port=") }.flatMap { UInt16($0.dropFirst(5)) }
    }

    /// How many established TCP connections process `pid` holds to `port` on loopback: its socket descriptors
    /// (`/proc/PID/fd`) matched by inode with `/proc/net/tcp`'s lines whose remote port is `port`.
    private static func connections(of pid: pid_t, toPort port: UInt16) -> Int {
        let directory = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let inodes = Set(descriptors.compactMap { descriptor -> Substring? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + descriptor),
                  target.hasPrefix("socket:[") else { return nil }
            return Substring(target.dropFirst(8).dropLast())
        })
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file, whose size is 0.
        guard let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() else { return 0 }
        let table = String(decoding: data, as: UTF8.self)
        let remote = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            return fields.count > 9 && fields[2].hasSuffix(remote) && fields[3] == "01" && inodes.contains(fields[9])
        }.count
    }
}
