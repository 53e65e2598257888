import ExpenseTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `expensed` serving a data directory of its own (a ``DaemonProcess`` with the ledger's token at hand).
final class ExpensedDaemon {
    let data: String
    let address: SocketAddress
    private let process: DaemonProcess

    struct DaemonFailure: Error { var message: String }

    /// Starts `expensed serve --data data --listen listen extra…` and waits for its `listening on` line.
    init(data: String, listen: String = "127.0.0.1:0", extra: [String] = []) throws {
        self.data = data
        let scratch = URL(fileURLWithPath: data).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        process = try DaemonProcess(["serve", "--data", data, "--listen", listen] + extra, scratch: scratch)
        guard let line = process.firstLine, line.hasPrefix("listening on ") else {
            _ = process.stop(SIGKILL)
            throw DaemonFailure(message: "expensed did not start: '\(process.firstLine ?? "")' \(process.stderr)")
        }
        address = try process.address()
    }

    /// The token of `default`.
    var token: String {
        get throws {
            try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// What the daemon wrote to standard error so far.
    var log: String { process.stderr }

    /// The daemon's process id (to signal it).
    var pid: Int32 { process.pid }

    func kill9() { _ = process.stop(SIGKILL) }

    /// SIGTERM, then waits; returns the exit status.
    func stop() -> Int32 { process.stop(SIGTERM).status }
}
