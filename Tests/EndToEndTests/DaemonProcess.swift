import ExpenseTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real, built `expensed` running as a long-lived process: started with `serve --listen 127.0.0.1:0`,
/// it is ready once its first stdout line (`listening on HOST:PORT`) has been read from the pipe.
final class DaemonProcess {
    private let process = Process()
    private let stdout = Pipe()
    /// Standard error goes to a file, so the daemon can never block on a full pipe.
    let stderrPath: String
    /// The first line the daemon printed, without its newline; `nil` when it closed stdout (exited) first.
    private(set) var firstLine: String?

    /// Starts `expensed arguments…` and reads its first stdout line (waiting at most `timeout` for it).
    init(_ arguments: [String], scratch: String, environment extra: [String: String] = [:], timeout: Duration = .seconds(60)) throws {
        stderrPath = scratch + "/expensed-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: ExpenseProcess.daemonExecutable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        firstLine = try readFirstLine(timeout: timeout)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Starts `expensed serve --listen 127.0.0.1:0 --data data` and requires its `listening on` line.
    static func serve(data: String, scratch: String, _ more: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonProcess {
        let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--data", data] + more, scratch: scratch)
        #expect(daemon.firstLine?.hasPrefix("listening on 127.0.0.1:") == true,
                "first line \(daemon.firstLine ?? "<none>"); stderr: \(daemon.stderr)", sourceLocation: sourceLocation)
        return daemon
    }

    /// The address from the `listening on HOST:PORT` line.
    func address() throws -> SocketAddress {
        let line = try #require(firstLine)
        return try SocketAddress(parsing: String(line.dropFirst("listening on ".count)))
    }

    /// What the daemon wrote to standard error so far.
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the process to end.
    func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, reason: Process.TerminationReason) {
        kill(process.processIdentifier, signal)
        return waitForExit()
    }

    /// Waits for the process to end by itself.
    func waitForExit() -> (status: Int32, reason: Process.TerminationReason) {
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason)
    }

    /// Everything the daemon printed on stdout after its first line, once it has exited.
    func restOfStdout() -> String {
        String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Reads stdout byte by byte up to the first newline; `nil` at end of file. Bounded by `timeout` (a hung
    /// daemon fails the test instead of hanging it).
    private func readFirstLine(timeout: Duration) throws -> String? {
        let descriptor = stdout.fileHandleForReading.fileDescriptor
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw TransportError.timedOut }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 60_000))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
