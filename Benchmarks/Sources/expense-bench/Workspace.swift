import Foundation
import Glibc

/// The bench's temporary directory (daemon data, client homes, logs); removed at the end.
struct Workspace {
    let path: String

    /// Creates `/tmp/expense-bench.XXXXXX`.
    init() throws(BenchError) {
        var template = Array("/tmp/expense-bench.XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw .lastSystemError("mkdtemp")
        }
        path = String(cString: created)
    }

    /// `path/name`, created as a directory when `directory` is true.
    func item(_ name: String, directory: Bool = false) -> String {
        let full = path + "/" + name
        if directory { try? FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true) }
        return full
    }

    func remove(_ name: String) { try? FileManager.default.removeItem(atPath: path + "/" + name) }

    /// Removes the whole directory; says so on stderr if it could not (one leftover was seen once).
    func removeAll() {
        var lastError: (any Error)?
        for _ in 0..<3 where FileManager.default.fileExists(atPath: path) {
            do { try FileManager.default.removeItem(atPath: path) } catch { lastError = error }
        }
        if FileManager.default.fileExists(atPath: path) {
            progress("warning: could not remove \(path): \(lastError.map { "\($0)" } ?? "unknown error")")
        }
    }
}

/// Progress lines on stderr.
func progress(_ message: String) {
    FileHandle.standardError.write(Data(("[bench] " + message + "\n").utf8))
}

/// The environment of this process without the client's server settings (so `expense` stays offline
/// unless a scenario sets them).
func cleanEnvironment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for key in ["EXPENSE_SERVER", "EXPENSE_LEDGER", "EXPENSE_TOKEN", "EXPENSE_HOME", "EXPENSE_STORE", "EXPENSE_TLS_CA",
                "EXPENSE_TLS_PIN"] {
        environment[key] = nil
    }
    return environment.merging(extra) { _, new in new }
}

/// Runs `body` `runs` times and returns the median of each named value, or the first error.
func medianOfRuns(_ runs: Int, _ what: String,
                  _ body: (Int) throws(BenchError) -> [String: Double]) -> Result<[String: Double], BenchError> { // not money: a measurement
    var samples: [String: [Double]] = [:] // not money: a measurement
    for run in 1...runs {
        do {
            let values = try body(run)
            let shown = values.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(BenchReport.format($0.value, $0.value < 100 ? 3 : 0))" }
            progress("\(what) run \(run)/\(runs): \(shown.joined(separator: " "))")
            for (key, value) in values { samples[key, default: []].append(value) }
        } catch {
            progress("\(what) run \(run)/\(runs) failed: \(error)")
            return .failure(error)
        }
    }
    return .success(samples.compactMapValues(Statistics.median))
}
