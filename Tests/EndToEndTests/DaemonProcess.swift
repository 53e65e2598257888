import ExpenseTransport
import Foundation
import ProcessSpawn
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real, built `expensed` running as a long-lived process: started with `serve --listen 127.0.0.1:0`,
/// it is ready once its first stdout line (`listening on HOST:PORT`) has been read from the pipe.
final class DaemonProcess {
    /// How the daemon ended: an exit code, or the signal that killed it.
    struct Ending: Equatable {
        enum Reason: Equatable { case exit, uncaughtSignal }
        var status: Int32
        var reason: Reason
    }

    private let child: ChildProcess
    private let stdout: Int32
    private var ending: Ending?
    /// Standard error goes to a file, so the daemon can never block on a full pipe.
    let stderrPath: String
    /// The first line the daemon printed, without its newline; `nil` when it closed stdout (exited) first.
    private(set) var firstLine: String?

    /// Starts `expensed arguments…` and reads its first stdout line (waiting at most `timeout` seconds for it).
    init(_ arguments: [String], scratch: String, environment extra: [String: String] = [:], timeout: Double = 60) throws {
        stderrPath = scratch + "/expensed-\(UUID().uuidString).err"
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let (child, stdout, _) = try ChildProcess.spawn(ExpenseProcess.daemonExecutable, arguments, environment: environment,
                                                        stdout: .pipe, stderr: .file(stderrPath))
        self.child = child
        self.stdout = stdout ?? -1
        firstLine = ChildProcess.readLine(from: self.stdout, timeout: timeout)
    }

    deinit {
        if ending == nil {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
        }
        close(stdout)
    }

    /// Starts `expensed serve --listen 127.0.0.1:0 --data data` and requires its `listening on` line.
    static func serve(data: String, scratch: String, _ more: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonProcess {
        let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--data", data] + more, scratch: scratch)
        #expect(daemon.firstLine?.hasPrefix("listening on 127.0.0.1:") == true,
                "first line \(daemon.firstLine ?? "<none>"); stderr: \(daemon.stderr)", sourceLocation: sourceLocation)
        return daemon
    }

    /// The address from the `listening on HOST:PORT` line, as text.
    func addressText() throws -> String {
        String(try #require(firstLine).dropFirst("listening on ".count))
    }

    /// The address from the `listening on HOST:PORT` line.
    func address() throws -> SocketAddress {
        try SocketAddress(parsing: try addressText())
    }

    /// The daemon's process id.
    var pid: Int32 { child.pid }

    /// Whether the daemon is still running: not exited, killed or a zombie (it is reaped only by ``stop(_:)`` or
    /// ``waitForExit()``, so its pid cannot have been reused).
    var isRunning: Bool { Self.isRunning(pid) }

    /// Whether the process `pid` is running, from the state in `/proc/PID/stat`.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = ChildProcess.procFile(pid, "stat"), let end = stat.lastIndex(of: ")"),
              let state = stat[stat.index(after: end)...].first(where: { $0 != " " }) else { return false }
        return state != "Z" && state != "X"
    }

    /// What the daemon wrote to standard error so far.
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the process to end.
    func stop(_ signal: Int32 = SIGTERM) -> Ending {
        if ending == nil { child.send(signal) }
        return waitForExit()
    }

    /// Waits (at most a minute, then kills it) for the process to end by itself.
    func waitForExit() -> Ending {
        if let ending { return ending }
        let exit = child.wait(timeout: 60)
        let ended = exit.code.map { Ending(status: $0, reason: .exit) }
            ?? Ending(status: exit.signal ?? 0, reason: .uncaughtSignal)
        ending = ended
        return ended
    }

    /// Everything the daemon printed on stdout after its first line, once it has exited.
    func restOfStdout() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(stdout, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
