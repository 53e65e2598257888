import ProcessSpawn
import Foundation
import Glibc

/// An `expensed serve` child on a loopback port chosen by the kernel (`--listen 127.0.0.1:0`).
final class DaemonProcess {
    let child: ChildProcess
    /// The port from the `listening on HOST:PORT` line.
    let port: UInt16
    /// Seconds from spawn to the `listening on` line.
    let startSeconds: Double
    /// The token of ledger `default` (from `DATA/default.token`).
    let token: String
    private var stopped = false
    /// The ``BenchCleanup`` entry that kills the daemon if the bench is interrupted.
    private var cleanup: Int?

    /// Starts the daemon on `dataDirectory` (or, with `postgres`, on that database, whose ledger `default` has
    /// that token) and waits (at most `timeout` s) for its `listening on` line.
    /// - Parameter log: file that receives the daemon's stderr (and any stdout after the first line).
    /// - Throws: ``BenchError/child(_:)`` saying what the daemon did instead.
    init(executable: String, dataDirectory: String, log: String, extraArguments: [String] = [],
         timeout: Double = 120, postgres: (conninfo: String, token: String)? = nil) throws(BenchError) { // not money: seconds
        let began = MonotonicClock.now()
        let child: ChildProcess, stdoutEnd: Int32?
        do {
            (child, stdoutEnd, _) = try ChildProcess.spawn(
                executable, ["serve"] + (postgres.map { ["--postgres", $0.conninfo] } ?? ["--data", dataDirectory])
                    + ["--listen", "127.0.0.1:0"] + extraArguments,
                environment: ProcessInfo.processInfo.environment, stdout: .pipe, stderr: .file(log))
        } catch {
            throw .child(error.description)
        }
        guard let stdoutEnd else { throw .child("no stdout pipe") }
        guard let line = ChildProcess.readLine(from: stdoutEnd, timeout: timeout) else {
            close(stdoutEnd)
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
            throw .child("expensed did not print 'listening on HOST:PORT' within \(Int(timeout)) s; log: \(Self.tail(of: log))")
        }
        startSeconds = MonotonicClock.now() - began
        ChildProcess.drainInBackground(stdoutEnd)
        guard line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"),
              let port = UInt16(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) else {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
            throw .child("expensed's first line was not 'listening on HOST:PORT' but '\(line.prefix(200))'")
        }
        let tokenFile = dataDirectory + "/default.token"
        guard let token = postgres?.token ?? (try? String(contentsOfFile: tokenFile, encoding: .utf8)) else {
            child.send(SIGTERM)
            _ = child.wait(timeout: 30)
            throw .child("no token at \(tokenFile)")
        }
        self.child = child
        self.port = port
        self.token = token.trimmingCharacters(in: .whitespacesAndNewlines)
        cleanup = BenchCleanup.add { child.send(SIGKILL) }
    }

    deinit {
        if !stopped {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
        }
        if let cleanup { BenchCleanup.remove(cleanup) }
    }

    /// CPU seconds the daemon's live threads ran so far (``SchedStat``, not the tick-sampled `utime` + `stime`).
    func cpuSeconds() -> Double? { // not money: a measurement
        let threads = SchedStat.threads(of: child.pid)
        return threads.isEmpty ? nil : Double(threads.values.reduce(0, &+)) / 1e9
    }

    /// Resident memory now, in MiB.
    func residentMiB() -> Double? { child.residentKiB().map { Double($0) / 1024 } } // not money: MiB

    /// SIGTERM, then waits for a clean exit (the daemon fsyncs and exits 0).
    /// - Returns: how it exited.
    @discardableResult
    func stop(timeout: Double = 60) -> ChildProcess.Exit { // not money: a measurement
        stopped = true
        child.send(SIGTERM)
        let exit = child.wait(timeout: timeout)
        if let cleanup { BenchCleanup.remove(cleanup) }
        cleanup = nil
        return exit
    }

    /// The last lines of a log file, for error messages.
    static func tail(of file: String, lines: Int = 3) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return "(no log)" }
        let last = text.split(separator: "\n").suffix(lines).joined(separator: " | ")
        return last.isEmpty ? "(empty log)" : String(last.prefix(400))
    }
}
