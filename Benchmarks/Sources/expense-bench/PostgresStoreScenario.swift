import Foundation
import ProcessSpawn

/// The `pg` section: on a durable throwaway cluster the bench starts and stops (``BenchPostgresCluster``), the
/// push figures of `expensed serve --postgres` (16 × 500 and single-mutation pushes from 100 connections, the
/// same plans as on SQLite), then PostgreSQL's own best multi-row insert of as many rows per transaction from as
/// many connections (``PostgresInsertLoad``), so the ratio comes from one run.
struct PostgresStoreScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let storeKeys = ["pg_store_push_mutations_per_s", "pg_store_push_p50_ms", "pg_store_push_p99_ms",
                            "pg_store_single_push_per_s", "pg_store_single_push_p99_ms"]
    static let insertKeys = ["pg_insert_rows_per_s", "pg_insert_p50_ms", "pg_insert_single_per_s", "pg_insert_single_p99_ms",
                             "pg_insert_driver_cores"]
    static let pushWorkKeys = ["pg_push_work_mutations_per_s", "pg_push_work_p50_ms", "pg_push_work_driver_cores",
                               "pg_push_work_one_conn_mutations_per_s", "pg_push_work_one_conn_p50_ms"]

    func run(into report: inout BenchReport) {
        let cluster: BenchPostgresCluster
        do {
            cluster = try BenchPostgresCluster()
        } catch {
            progress("pg: \(error)")
            report.markMissing(Self.storeKeys + Self.insertKeys + Self.pushWorkKeys, "\(error)")
            return
        }
        defer { cluster.stop() }
        progress("pg: a durable throwaway cluster at \(cluster.conninfo)")
        measureStore(cluster, into: &report)
        measureInserts(cluster, into: &report)
        measurePushWork(cluster, into: &report)
    }

    /// PostgreSQL doing a push's work (``PostgresPushWork``): 500 mutations per transaction from 16 connections, as
    /// the push figure, then over one connection, as our store's one backend per ledger.
    private func measurePushWork(_ cluster: BenchPostgresCluster, into report: inout BenchReport) {
        let cases = [(connections: 16, rate: "pg_push_work_mutations_per_s", p50: "pg_push_work_p50_ms"),
                     (connections: 1, rate: "pg_push_work_one_conn_mutations_per_s", p50: "pg_push_work_one_conn_p50_ms")]
        for (connections, rateKey, p50Key) in cases {
            var load = PostgresInsertLoad(conninfo: PostgresPushWork.conninfo(cluster.conninfo), connections: connections,
                                          rowsPerTransaction: 500, warmup: options.warmupSeconds, duration: options.windowSeconds)
            load.transaction = { index, rows, seq in PostgresPushWork.transaction(index: index, rows: rows, seq: &seq) }
            switch medianOfRuns(options.runs, rateKey, { _ throws(BenchError) in
                // A fresh database each run: every run's seqs start at 1, and its tables start empty.
                try PostgresPushWork.prepare(conninfo: cluster.conninfo, ledgers: connections)
                let result = try load.run()
                return ["rate": result.rowsPerSecond, "p50": Statistics.percentile(result.latenciesMs, 50) ?? .nan,
                        "cores": result.driverCores]
            }) {
            case .success(let medians):
                report.record(rateKey, medians["rate"])
                report.record(p50Key, medians["p50"])
                if connections > 1 { report.record("pg_push_work_driver_cores", medians["cores"]) }
            case .failure(let error):
                report.markMissing([rateKey, p50Key], "\(error)")
            }
        }
    }

    private func measureStore(_ cluster: BenchPostgresCluster, into report: inout BenchReport) {
        let daemon: DaemonProcess
        do {
            let tokenFile = workspace.item("pg-token")
            let (exit, _) = try BenchError.spawning { () throws(ChildProcess.SpawnError) in
                try ChildProcess.run(options.expensed, ["ledger", "add", "default", "--postgres", cluster.conninfo],
                                     environment: cleanEnvironment([:]), stdout: .file(tokenFile),
                                     stderr: .file(workspace.item("pg-ledger-add.log")), timeout: 60)
            }
            guard exit.succeeded, let token = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw BenchError.child("expensed ledger add --postgres: \(exit.description)")
            }
            daemon = try DaemonProcess(executable: options.expensed, dataDirectory: workspace.item("pg-unused"),
                                       log: workspace.item("expensed-pg.log"),
                                       postgres: (cluster.conninfo, token.trimmingCharacters(in: .whitespacesAndNewlines)))
        } catch {
            progress("pg: \(error)")
            report.markMissing(Self.storeKeys, "\(error)")
            return
        }
        progress("pg: expensed serve --postgres listening on port \(daemon.port)")
        let throughput = ThroughputScenario(options: options, workspace: workspace)
        let seeds = SeedSequence()
        throughput.measurePush(daemon, seeds: seeds, keys: .postgres, into: &report)
        throughput.measureSinglePush(daemon, seeds: seeds, keys: .postgres, into: &report)
        let exit = daemon.stop()
        if !exit.succeeded { progress("pg: expensed stopped with \(exit.description) (expected exit 0)") }
    }

    private func measureInserts(_ cluster: BenchPostgresCluster, into report: inout BenchReport) {
        do {
            try PostgresInsertLoad.prepare(conninfo: cluster.conninfo)
        } catch {
            report.markMissing(Self.insertKeys, "\(error)")
            return
        }
        let cases = [(connections: 16, rows: 500, rate: "pg_insert_rows_per_s", latency: ("pg_insert_p50_ms", 50.0)),
                     (connections: 100, rows: 1, rate: "pg_insert_single_per_s", latency: ("pg_insert_single_p99_ms", 99.0))]
        for (connections, rows, rateKey, (latencyKey, p)) in cases {
            let load = PostgresInsertLoad(conninfo: cluster.conninfo, connections: connections, rowsPerTransaction: rows,
                                          warmup: options.warmupSeconds, duration: options.windowSeconds)
            switch medianOfRuns(options.runs, rateKey, { _ throws(BenchError) in
                let result = try load.run()
                return ["rate": rows == 1 ? result.transactionsPerSecond : result.rowsPerSecond,
                        "latency": Statistics.percentile(result.latenciesMs, p) ?? .nan, "cores": result.driverCores]
            }) {
            case .success(let medians):
                report.record(rateKey, medians["rate"])
                report.record(latencyKey, medians["latency"])
                if rows > 1 { report.record("pg_insert_driver_cores", medians["cores"]) }
            case .failure(let error):
                report.markMissing([rateKey, latencyKey], "\(error)")
            }
        }
    }
}
