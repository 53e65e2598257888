import CStorageCeiling
import Foundation
import Glibc
import ProcessSpawn

/// The `storage` section: what the storage under the push figures allows, on the disk of the daemons' data
/// directories (the workspace). The raw-SQLite ceiling of the 16 × 500 push (``CStorageCeiling``: our SQLite
/// store's rows from C, in groups of the size the daemon's commits had in this run), and the disk's rate of
/// `fdatasync` after a 4 KiB overwrite with what it implies for single-mutation pushes: one sync per group commit,
/// so at most syncs per second × the pushes a commit carried.
struct StorageScenario {
    let options: BenchOptions
    let workspace: Workspace

    static let ceilingKeys = ["sqlite_ceiling_mutations_per_s", "sqlite_ceiling_group_mutations", "sqlite_ceiling_writer_cores"]
    static let diskKeys = ["disk_fdatasync_per_s", "disk_fdatasync_p50_ms", "single_push_disk_bound_per_s"]

    func run(into report: inout BenchReport) {
        measureCeiling(into: &report)
        measureDisk(into: &report)
    }

    /// The push figure's group size: the mutations per commit observed on the daemon in whole pushes of 500
    /// (at least one, at most the 16 connections' pushes), or one push when it was not observed.
    static func ceilingGroup(observed: Double?) -> (mutations: Int, pushes: Int) { // not money: a measurement
        let pushes = observed.map { min(16, max(1, Int(($0 / 500).rounded()))) } ?? 1
        return (pushes * 500, pushes)
    }

    private func measureCeiling(into report: inout BenchReport) {
        let group = Self.ceilingGroup(observed: report.value("push_group_mutations"))
        progress("storage: raw SQLite ceiling, \(group.mutations) mutations per commit from \(group.pushes) clients")
        switch medianOfRuns(options.runs, "sqlite_ceiling", { run throws(BenchError) in
            let path = workspace.item("ceiling-\(run).sqlite")
            defer { for suffix in ["", "-wal", "-shm"] { workspace.remove("ceiling-\(run).sqlite" + suffix) } }
            var result = storage_ceiling_result()
            guard storage_ceiling_run(path, Int32(group.mutations), Int32(group.pushes), options.warmupSeconds,
                                      options.windowSeconds, &result) == 0 else {
                let error = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                throw .other("raw SQLite ceiling: \(error)")
            }
            return ["rate": Double(result.mutations) / options.windowSeconds,
                    "cores": Double(result.writer_cpu_ns) / 1e9 / options.windowSeconds]
        }) {
        case .success(let medians):
            report.record("sqlite_ceiling_mutations_per_s", medians["rate"])
            report.record("sqlite_ceiling_group_mutations", Double(group.mutations))
            report.record("sqlite_ceiling_writer_cores", medians["cores"])
        case .failure(let error):
            report.markMissing(Self.ceilingKeys, "\(error)")
        }
    }

    private func measureDisk(into report: inout BenchReport) {
        let path = workspace.item("fdatasync-probe")
        defer { workspace.remove("fdatasync-probe") }
        switch medianOfRuns(options.runs, "disk_fdatasync", { _ throws(BenchError) in
            let latencies = try Self.probe(path: path, seconds: options.windowSeconds)
            return ["rate": Double(latencies.count) / options.windowSeconds, "p50": Statistics.percentile(latencies, 50) ?? .nan]
        }) {
        case .success(let medians):
            report.record("disk_fdatasync_per_s", medians["rate"])
            report.record("disk_fdatasync_p50_ms", medians["p50"])
            let bound = medians["rate"].flatMap { rate in report.value("single_push_group_size").map { rate * $0 } }
            report.record("single_push_disk_bound_per_s", bound,
                          missing: "needs single_push_group_size (the single-push figure, with perf)")
        case .failure(let error):
            report.markMissing(Self.diskKeys, "\(error)")
        }
    }

    /// Overwrites the first 4 KiB of a file at `path` (written and synced first, so no sync changes its size)
    /// and `fdatasync`s it, over and over for `seconds`.
    /// - Returns: each overwrite + sync's latency in ms.
    static func probe(path: String, seconds: Double) throws(BenchError) -> [Double] { // not money: a measurement
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .lastSystemError("open \(path)") }
        defer { close(descriptor) }
        var block = [UInt8](repeating: 0x5A, count: 4096)
        guard pwrite(descriptor, &block, block.count, 0) == block.count, fsync(descriptor) == 0 else {
            throw .lastSystemError("write \(path)")
        }
        var latencies: [Double] = [] // not money: a measurement
        let end = MonotonicClock.now() + seconds
        var counter: UInt8 = 0
        while true {
            let began = MonotonicClock.now()
            if began >= end { break }
            counter &+= 1
            block[0] = counter
            guard pwrite(descriptor, &block, block.count, 0) == block.count, fdatasync(descriptor) == 0 else {
                throw .lastSystemError("overwrite + fdatasync \(path)")
            }
            latencies.append((MonotonicClock.now() - began) * 1000)
        }
        return latencies
    }
}
