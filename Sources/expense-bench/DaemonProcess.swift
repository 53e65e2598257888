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

    /// Starts the daemon on `dataDirectory` and waits (at most `timeout` s) for its `listening on` line.
    /// - Parameter log: file that receives the daemon's stderr (and any stdout after the first line).
    /// - Throws: ``BenchError/child(_:)`` saying what the daemon did instead.
    init(executable: String, dataDirectory: String, log: String, extraArguments: [String] = [],
         timeout: Double = 120) throws(BenchError) {
        let began = MonotonicClock.now()
        let (child, stdoutEnd) = try ChildProcess.spawn(
            executable, ["serve", "--data", dataDirectory, "--listen", "127.0.0.1:0"] + extraArguments,
            environment: ProcessInfo.processInfo.environment, stdout: .pipe, stderr: .file(log))
        guard let stdoutEnd else { throw .child("no stdout pipe") }
        let line: String
        do {
            line = try Self.firstLine(of: stdoutEnd, timeout: timeout)
        } catch {
            close(stdoutEnd)
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
            throw .child("expensed did not print 'listening on HOST:PORT' (\(error)); log: \(Self.tail(of: log))")
        }
        startSeconds = MonotonicClock.now() - began
        Self.drainInBackground(stdoutEnd)
        guard line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"),
              let port = UInt16(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) else {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
            throw .child("expensed's first line was not 'listening on HOST:PORT' but '\(line.prefix(200))'")
        }
        let tokenFile = dataDirectory + "/default.token"
        guard let token = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
            child.send(SIGTERM)
            _ = child.wait(timeout: 30)
            throw .child("no token at \(tokenFile)")
        }
        self.child = child
        self.port = port
        self.token = token.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        if !stopped {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
        }
    }

    /// Resident memory now, in MiB.
    func residentMiB() -> Double? { child.residentKiB().map { Double($0) / 1024 } }

    /// SIGTERM, then waits for a clean exit (the daemon fsyncs and exits 0).
    /// - Returns: how it exited.
    @discardableResult
    func stop(timeout: Double = 60) -> ChildProcess.Exit {
        stopped = true
        child.send(SIGTERM)
        return child.wait(timeout: timeout)
    }

    /// Reads bytes until the first `\n`, waiting at most `timeout` seconds in total.
    private static func firstLine(of descriptor: Int32, timeout: Double) throws(BenchError) -> String {
        let deadline = MonotonicClock.now() + timeout
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { throw .child("timed out after \(Int(timeout)) s") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1000)))
            if ready < 0 && errno != EINTR { throw .lastSystemError("poll") }
            guard ready > 0 else { continue }
            let count = read(descriptor, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
                bytes.append(byte)
            } else if count == 0 {
                throw .child("it exited or closed stdout (after '\(String(decoding: bytes, as: UTF8.self))')")
            } else if errno != EINTR {
                throw .lastSystemError("read")
            }
        }
    }

    /// Keeps reading (and discarding) the daemon's stdout so it never blocks on a full pipe.
    private static func drainInBackground(_ descriptor: Int32) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 || (count < 0 && errno == EINTR) { continue }
                break
            }
            close(descriptor)
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    /// The last lines of a log file, for error messages.
    static func tail(of file: String, lines: Int = 3) -> String {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return "(no log)" }
        let last = text.split(separator: "\n").suffix(lines).joined(separator: " | ")
        return last.isEmpty ? "(empty log)" : String(last.prefix(400))
    }
}
