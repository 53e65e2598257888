import ExpenseTransport
import Foundation
import ProcessSpawn
import SystemKit

/// The throughput figures on one fresh daemon, so their pushes leave the seeded ledger's size alone: ping (1 in
/// flight and 16 deep), 5,000 idle connections, durable pushes of 500 mutations, single-mutation pushes.
struct ThroughputScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let pingLine = Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [UInt8(ascii: "\n")]
    static let resultToken = Array(#""result""#.utf8)
    static let appliedToken = Array(#""applied""#.utf8)
    static let keys = ["ping_rps", "ping_pipelined_rps", "push_mutations_per_s", "push_p50_ms", "push_p99_ms",
                       "single_push_per_s", "single_push_p99_ms", "idle_5000_rss_mib", "idle_5000_ping_p99_ms",
                       "ping_generator_cores", "ping_daemon_cores", "ping_daemon_us_per_ping", "idle_kib_per_connection",
                       "pong_ping_rps", "pong_ping_pipelined_rps"]

    /// Runs `plan` `options.runs` times and records the median rate under `key`; with `cpuKeys`, also the median CPU
    /// (in cores) of the generator and of the daemon during the runs; with `perOperationKey`, the median of the
    /// daemon's CPU per operation in µs (user and system: the kernel's share of a loopback round trip included).
    static func measure(_ plan: LoadPlan, key: String, daemon: DaemonProcess?, options: BenchOptions,
                        into report: inout BenchReport, cpuKeys: (generator: String, server: String)? = nil,
                        perOperationKey: String? = nil) {
        switch medianOfRuns(options.runs, key, { _ throws(BenchError) in
            let began = MonotonicClock.now()
            let daemonBefore = daemon?.cpuSeconds()
            let result = try LoadGenerator.run(plan)
            var values = ["rps": result.operationsPerSecond, "generator_cores": result.generatorCores]
            if let before = daemonBefore, let after = daemon?.cpuSeconds() {
                let cores = (after - before) / (MonotonicClock.now() - began)
                values["server_cores"] = cores
                values["us_per_op"] = result.operationsPerSecond > 0 ? cores * 1e6 / result.operationsPerSecond : .nan
            }
            return values
        }) {
        case .success(let medians):
            report.record(key, medians["rps"])
            if let cpuKeys {
                report.record(cpuKeys.generator, medians["generator_cores"])
                report.record(cpuKeys.server, medians["server_cores"], missing: "no /proc/PID/stat")
            }
            if let perOperationKey { report.record(perOperationKey, medians["us_per_op"], missing: "no /proc/PID/stat") }
        case .failure(let error):
            report.markMissing([key] + (cpuKeys.map { [$0.generator, $0.server] } ?? []) + (perOperationKey.map { [$0] } ?? []),
                               "\(error)")
        }
    }

    /// The generator against the bench's trivial pong server, the same two ping plans: the rate the generator reaches
    /// when the server costs almost nothing, so a daemon figure close to it is bound by the client.
    private func measureHeadroom(into report: inout BenchReport) {
        let keys = ["pong_ping_rps", "pong_ping_pipelined_rps"]
        let server: PongProcess
        do {
            server = try PongProcess(log: workspace.item("pong.log"))
        } catch {
            report.markMissing(keys, "\(error)")
            return
        }
        defer { server.stop() }
        for (key, depth) in [("pong_ping_rps", 1), ("pong_ping_pipelined_rps", 16)] {
            let load = LoadPlan(port: server.port, connections: 50,
                                source: { _, _ in FixedRoundSource(request: Self.pingLine, depth: depth) },
                                expect: Self.resultToken,
                                stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
            Self.measure(load, key: key, daemon: nil, options: options, into: &report)
        }
    }

    func run(into report: inout BenchReport) {
        let daemon: DaemonProcess
        do {
            // 5,000 idle connections plus the active ones exceed the default --max-connections (4096).
            daemon = try DaemonProcess(executable: options.expensed,
                                       dataDirectory: workspace.item("data-throughput", directory: true),
                                       log: workspace.item("expensed-throughput.log"),
                                       extraArguments: ["--max-connections", "10000"])
        } catch {
            progress("throughput: \(error)")
            report.markMissing(Self.keys, "\(error)")
            return
        }
        progress("throughput: expensed listening on port \(daemon.port) (started in "
                 + "\(BenchReport.format(daemon.startSeconds, 3)) s)")
        measurePings(daemon, into: &report)
        // The idle figure is the cost of connections: measured before the push figures fill the ledger (a few
        // million expenses at today's rates, whose id map and totals the daemon then holds), as the TLS idle
        // figure is measured on a daemon that only answered pings.
        if options.includes("idle") { measureIdle(daemon, into: &report) }
        measurePushes(daemon, into: &report)
        let exit = daemon.stop()
        if !exit.succeeded { progress("throughput: expensed stopped with \(exit.description) (expected exit 0)") }
        workspace.remove("data-throughput")
    }

    func plan(_ daemon: DaemonProcess, connections: Int,
                      source: @escaping @Sendable (Int, Int) -> any RoundSource, expect: [UInt8]) -> LoadPlan {
        let token = daemon.token
        return LoadPlan(port: daemon.port, connections: connections,
                        handshake: { connection, _ throws(BenchError) in try RPCSession.hello(connection, token: token) },
                        source: source, expect: expect,
                        stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
    }

    private func measurePings(_ daemon: DaemonProcess, into report: inout BenchReport) {
        for (key, depth) in [("ping_rps", 1), ("ping_pipelined_rps", 16)] where options.includesThroughputFigure("ping") {
            let load = plan(daemon, connections: 50, source: { _, _ in
                FixedRoundSource(request: Self.pingLine, depth: depth)
            }, expect: Self.resultToken)
            Self.measure(load, key: key, daemon: daemon, options: options, into: &report,
                         cpuKeys: depth == 1 ? ("ping_generator_cores", "ping_daemon_cores") : nil,
                         perOperationKey: depth == 1 ? "ping_daemon_us_per_ping" : nil)
        }
        if options.includesThroughputFigure("ping") { measureHeadroom(into: &report) }
    }

    private func measurePushes(_ daemon: DaemonProcess, into report: inout BenchReport) {
        let seeds = SeedSequence()
        if options.includesThroughputFigure("push") { measurePush(daemon, seeds: seeds, keys: .sqlite, into: &report) }
        if options.includesThroughputFigure("single") { measureSinglePush(daemon, seeds: seeds, keys: .sqlite, into: &report) }
    }

    /// The keys the push figures go under: the PostgreSQL section measures the same figures on its store.
    struct PushKeys {
        var rate, p50, p99, singleRate, singleP99: String
        /// Where the daemon's CPU and group commits during the push figures go (SQLite only: ``SyncCounter``
        /// counts the daemon's own syncs, and a PostgreSQL store's are the server's).
        var observed: (push: ObservedKeys, single: ObservedKeys)?
        static let sqlite = PushKeys(rate: "push_mutations_per_s", p50: "push_p50_ms", p99: "push_p99_ms",
                                     singleRate: "single_push_per_s", singleP99: "single_push_p99_ms",
                                     observed: (ObservedKeys(prefix: "push_", perOperation: "push_daemon_us_per_mutation",
                                                             perCommit: "push_group_mutations"),
                                                ObservedKeys(prefix: "single_push_", perOperation: "single_push_daemon_us_per_push",
                                                             perCommit: "single_push_group_size")))
        static let postgres = PushKeys(rate: "pg_store_push_mutations_per_s", p50: "pg_store_push_p50_ms",
                                       p99: "pg_store_push_p99_ms", singleRate: "pg_store_single_push_per_s",
                                       singleP99: "pg_store_single_push_p99_ms")
    }

    /// The daemon's CPU during a load (``DaemonCPU``) and its operations per group commit (``SyncCounter``).
    struct ObservedKeys {
        var cores, busiest, second, perOperation, perCommit: String

        init(prefix: String, perOperation: String, perCommit: String) {
            (cores, busiest, second) = (prefix + "daemon_cores", prefix + "busiest_thread_cores", prefix + "second_thread_cores")
            (self.perOperation, self.perCommit) = (perOperation, perCommit)
        }

        var all: [String] { [cores, busiest, second, perOperation, perCommit] }
    }

    /// 16 connections pushing 500 new expenses at a time.
    func measurePush(_ daemon: DaemonProcess, seeds: SeedSequence, keys: PushKeys, into report: inout BenchReport) {
        let push = plan(daemon, connections: 16, source: { _, last in
            PushRoundSource(mutationsPerPush: 500, lastMutationId: last, pushes: nil, seed: seeds.take())
        }, expect: Self.appliedToken)
        Self.measureRate(push, rateKey: keys.rate, percentiles: [(keys.p50, 50), (keys.p99, 99)],
                         options: options, into: &report,
                         observing: keys.observed.map { (daemon, $0.push, workspace.item("perf-push.csv")) })
    }

    /// 100 connections pushing one new expense at a time.
    func measureSinglePush(_ daemon: DaemonProcess, seeds: SeedSequence, keys: PushKeys, into report: inout BenchReport) {
        let single = plan(daemon, connections: 100, source: { _, last in
            PushRoundSource(mutationsPerPush: 1, lastMutationId: last, pushes: nil, seed: seeds.take())
        }, expect: Self.appliedToken)
        Self.measureRate(single, rateKey: keys.singleRate, percentiles: [(keys.singleP99, 99)],
                         options: options, into: &report,
                         observing: keys.observed.map { (daemon, $0.single, workspace.item("perf-single.csv")) })
    }

    /// Runs `plan` `options.runs` times; records the median rate under `rateKey` and the median of each latency
    /// percentile (of the rounds, in ms) under its key; with `observing`, also the daemon's CPU by thread and its
    /// operations per group commit (missing, with the reason, when perf cannot count its syncs).
    static func measureRate(_ plan: LoadPlan, rateKey: String, percentiles: [(key: String, p: Double)],
                            options: BenchOptions, into report: inout BenchReport,
                            observing: (daemon: DaemonProcess, keys: ObservedKeys, perfOutput: String)? = nil) {
        var syncProblem: String?
        switch medianOfRuns(options.runs, rateKey, { _ throws(BenchError) in
            guard let observing else {
                let result = try LoadGenerator.run(plan)
                var values = ["rate": result.operationsPerSecond]
                for (key, p) in percentiles { values[key] = result.latencyPercentile(p) ?? .nan }
                return values
            }
            let (daemon, keys, perfOutput) = observing
            var counter: SyncCounter?
            do { counter = try SyncCounter(pid: daemon.child.pid, output: perfOutput) } catch { syncProblem = "\(error)" }
            let result: LoadResult, cpu: DaemonCPU
            do throws(BenchError) {
                (result, cpu) = try DaemonCPU.measure(daemon.child.pid) { () throws(BenchError) in try LoadGenerator.run(plan) }
            } catch {
                _ = try? counter?.stop()  // perf is this run's child: it never outlives the figure
                throw error
            }
            var values = ["rate": result.operationsPerSecond, keys.cores: cpu.total, keys.busiest: cpu.busiest,
                          keys.second: cpu.second,
                          keys.perOperation: result.operationsPerSecond > 0 ? cpu.total * 1e6 / result.operationsPerSecond : .nan]
            for (key, p) in percentiles { values[key] = result.latencyPercentile(p) ?? .nan }
            do {
                if let syncs = try counter?.stop(), syncs > 0 { values[keys.perCommit] = result.operationsPerSecond / syncs }
            } catch {
                syncProblem = "\(error)"
            }
            return values
        }) {
        case .success(let medians):
            report.record(rateKey, medians["rate"])
            for (key, _) in percentiles { report.record(key, medians[key]) }
            if let keys = observing?.keys {
                for key in keys.all { report.record(key, medians[key], missing: syncProblem ?? "not measured") }
            }
        case .failure(let error):
            report.markMissing([rateKey] + percentiles.map(\.key) + (observing?.keys.all ?? []), "\(error)")
        }
    }

    /// Opens `idleConnections` connections that each say `hello` and then stay silent; measures the
    /// daemon's RSS and the ping latency of one more, active connection.
    private func measureIdle(_ daemon: DaemonProcess, into report: inout BenchReport) {
        let keys = ["idle_5000_rss_mib", "idle_5000_ping_p99_ms", "idle_kib_per_connection"]
        let idle: [TCPConnection], baseline: Double? // not money: MiB
        do {
            (idle, baseline) = try Self.openIdle(daemon, connections: options.idleConnections, tls: nil)
        } catch {
            report.markMissing(keys, "\(error)")
            return
        }
        do {
            let active = try TCPConnection(host: "127.0.0.1", port: daemon.port)
            _ = try RPCSession.hello(active, token: daemon.token)
            var response: [UInt8] = []
            let outcome = medianOfRuns(options.runs, "idle_5000") { _ throws(BenchError) in
                var latencies: [Double] = [] // not money: a measurement
                latencies.reserveCapacity(options.idlePings)
                for _ in 0..<options.idlePings {
                    let began = MonotonicClock.now()
                    try active.send(Self.pingLine)
                    try active.receive(lines: 1, into: &response)
                    latencies.append((MonotonicClock.now() - began) * 1000)
                    guard TCPConnection.occurrences(of: Self.resultToken, in: response) == 1 else {
                        throw .unexpectedResponse(BenchError.excerpt(response))
                    }
                }
                return ["rss_mib": daemon.residentMiB() ?? .nan, "p99_ms": Statistics.percentile(latencies, 99) ?? .nan]
            }
            switch outcome {
            case .success(let medians):
                report.record("idle_5000_rss_mib", medians["rss_mib"], missing: "no /proc/PID/status")
                report.record("idle_5000_ping_p99_ms", medians["p99_ms"])
                report.record("idle_kib_per_connection", Self.perConnection(medians["rss_mib"], baseline, idle.count),
                              missing: "no /proc/PID/status")
            case .failure(let error): report.markMissing(keys, "\(error)")
            }
        } catch {
            report.markMissing(keys, "\(error)")
        }
        withExtendedLifetime(idle) {}
    }

    /// KiB of the daemon's RSS per connection: what `count` connections added to `baseline` (MiB before them).
    static func perConnection(_ resident: Double?, _ baseline: Double?, _ count: Int) -> Double? { // not money: KiB
        guard let resident, let baseline, count > 0, resident.isFinite else { return nil }
        return (resident - baseline) * 1024 / Double(count)
    }

    /// `connections` connections (TLS with `tls`) that each said `hello` and stay open while the caller keeps them,
    /// and the daemon's RSS before them (MiB).
    static func openIdle(_ daemon: DaemonProcess, connections: Int,
                         tls: TLSContext?) throws(BenchError) -> (connections: [TCPConnection], baselineMiB: Double?) {
        let baseline = daemon.residentMiB()
        var idle: [TCPConnection] = []
        idle.reserveCapacity(connections)
        do {
            for _ in 0..<connections {
                let connection = try TCPConnection(host: "127.0.0.1", port: daemon.port, tls: tls)
                _ = try RPCSession.hello(connection, token: daemon.token)
                idle.append(connection)
            }
        } catch {
            progress("idle: failed after \(idle.count) connections: \(error)")
            throw .other("after \(idle.count) connections: \(error)")
        }
        progress("idle: \(idle.count) \(tls == nil ? "" : "TLS ")connections said hello; daemon RSS "
                 + "\(baseline.map { BenchReport.format($0, 1) } ?? "?") MiB before")
        return (idle, baseline)
    }

    /// Waits until the daemon's RSS stops falling: two sweep intervals first (an idle TLS connection gives its
    /// record buffers back at the daemon's first sweep after a quiet interval, at most 1 s each), then readings half
    /// a second apart until one falls by less than 1 % (at most 5 s more). So the figure is the steady state of idle
    /// connections, not the moment after the last `hello`; a plaintext daemon's RSS does not fall.
    static func settle(_ daemon: DaemonProcess) {
        sleepThread(for: .seconds(2))
        var last = daemon.residentMiB() ?? 0 // not money: MiB
        for _ in 0..<10 {
            sleepThread(for: .milliseconds(500))
            let now = daemon.residentMiB() ?? 0
            if now >= last * 0.99 { return }
            last = now
        }
    }

    /// The daemon's RSS (median over `runs` readings, MiB) while `connections` idle connections are open, and
    /// KiB of it per connection (``perConnection(_:_:_:)``).
    static func idleResident(_ daemon: DaemonProcess, connections: Int, tls: TLSContext?, runs: Int,
                             what: String) -> Result<(mib: Double, kibPerConnection: Double?), BenchError> { // not money: MiB
        let idle: [TCPConnection], baseline: Double? // not money: MiB
        do {
            (idle, baseline) = try openIdle(daemon, connections: connections, tls: tls)
        } catch {
            return .failure(error)
        }
        defer { withExtendedLifetime(idle) {} }
        settle(daemon)
        return medianOfRuns(runs, what) { _ throws(BenchError) in ["rss_mib": daemon.residentMiB() ?? .nan] }
            .map { medians in
                let mib = medians["rss_mib"] ?? .nan
                return (mib, perConnection(mib, baseline, idle.count))
            }
    }
}
