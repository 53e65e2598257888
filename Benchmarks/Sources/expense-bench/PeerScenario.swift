import ProcessSpawn
import Foundation

/// The peers, started through `../shared/peers/setup-peers.sh` and driven by the same load generator as expensed
/// (Redis), so a ratio in the table compares the servers, not two clients. PostgreSQL is measured by the `pg` section
/// on a cluster of its own (``PostgresStoreScenario``).
struct PeerScenario {
    let options: BenchOptions
    let workspace: Workspace
    /// The kit's servers; those this run starts are stopped by main.swift on every exit path.
    let servers: PeerServers

    static let redisPort: UInt16 = 6390
    static let redisAOFPort: UInt16 = 6391

    /// Runs `setup-peers.sh` (idempotent: installs if needed, starts what is not running) and records in
    /// ``servers`` which servers it started (even when it fails halfway), so that only those are stopped.
    /// - Returns: `nil` on success, else the reason.
    func setUp() -> String? {
        let script = options.peersDirectory + "/setup-peers.sh"
        let log = workspace.item("setup-peers.log")
        progress("peers: \(script)")
        let before = servers.setUpBegins()
        defer {
            let started = servers.setUpEnded()
            let kept = before.keys.map(\.name).sorted()
            progress("peers: started by this run (stopped at the end): \(started.isEmpty ? "none" : started.joined(separator: ", "))"
                     + (kept.isEmpty ? "" : "; already running (left alone): \(kept.joined(separator: ", "))"))
        }
        do {
            let (exit, _) = try ChildProcess.run("/bin/bash", [script], environment: cleanEnvironment([:]),
                                                 stdout: .file(log), stderr: .file(log), timeout: 900)
            return exit.succeeded ? nil : "setup-peers.sh: \(exit.description): \(DaemonProcess.tail(of: log, lines: 2))"
        } catch {
            return "\(error)"
        }
    }

    func runRedis(into report: inout BenchReport) {
        let window = LoadPlan.Stop.window(warmup: options.warmupSeconds, duration: options.windowSeconds)
        let ping = Array("PING\r\n".utf8)
        let cases: [(String, LoadPlan)] = [
            ("redis_ping_rps", LoadPlan(port: Self.redisPort, connections: 50,
                                        source: { _, _ in FixedRoundSource(request: ping, depth: 1) },
                                        expect: Array("+PONG".utf8), stop: window)),
            ("redis_ping_pipelined_rps", LoadPlan(port: Self.redisPort, connections: 50,
                                                  source: { _, _ in FixedRoundSource(request: ping, depth: 16) },
                                                  expect: Array("+PONG".utf8), stop: window)),
            ("redis_aof_set_rps", LoadPlan(port: Self.redisAOFPort, connections: 50,
                                           source: { index, _ in
                                               FixedRoundSource(request: Array("SET key:\(index) value\r\n".utf8), depth: 1)
                                           },
                                           expect: Array("+OK".utf8), stop: window)),
        ]
        for (key, plan) in cases {
            switch medianOfRuns(options.runs, key, { _ throws(BenchError) in
                ["rps": try LoadGenerator.run(plan).operationsPerSecond]
            }) {
            case .success(let medians): report.record(key, medians["rps"])
            case .failure(let error): report.markMissing([key], "\(error)")
            }
        }
        runRedisPushWork(into: &report)
    }

    static let pushWorkKeys = ["redis_push_work_rps", "redis_push_work_p99_ms"]

    /// Redis doing a single push's work (``RedisPushWork``) from 100 connections, one call in flight each, as the
    /// daemon's `single_push_per_s` runs; then empties the database it wrote and unloads the function.
    private func runRedisPushWork(into report: inout BenchReport) {
        do {
            try RedisPushWork.load(port: Self.redisAOFPort)
        } catch {
            report.markMissing(Self.pushWorkKeys, "\(error)")
            return
        }
        defer {
            do { try RedisPushWork.cleanUp(port: Self.redisAOFPort) } catch { progress("redis: \(error)") }
        }
        let seeds = SeedSequence()
        let plan = LoadPlan(port: Self.redisAOFPort, connections: 100,
                            handshake: { connection, _ throws(BenchError) in
                                try RedisPushWork.select(connection)
                                return 0
                            },
                            source: { index, _ in RedisPushWork.Source(connection: index, seed: seeds.take()) },
                            expect: Array("+OK".utf8),
                            stop: .window(warmup: options.warmupSeconds, duration: options.windowSeconds))
        ThroughputScenario.measureRate(plan, rateKey: "redis_push_work_rps", percentiles: [("redis_push_work_p99_ms", 99)],
                                       options: options, into: &report)
    }
}
