import Foundation
import ProcessSpawn
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `expense sync --watch` running as a long-lived child on one client's `EXPENSE_HOME`, its output in files
/// (never pipes: a full pipe could block it).
final class WatcherProcess {
    private let child: ChildProcess
    private var exit: ChildProcess.Exit?
    let stdoutPath: String
    let stderrPath: String

    /// Starts `expense sync --watch` (or `arguments`) with `environment` added to ours (`EXPENSE_HOME` is
    /// `client.home`).
    init(client: ExpenseProcess, environment extra: [String: String],
         arguments: [String] = ["sync", "--watch"]) throws {
        let name = client.directory + "/watch-" + UUID().uuidString
        stdoutPath = name + ".out"
        stderrPath = name + ".err"
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = client.home
        environment["EXPENSE_STORE"] = nil
        environment["EXPENSE_VERBOSE"] = nil
        for (key, value) in extra { environment[key] = value }
        (child, _, _) = try ChildProcess.spawn(ExpenseProcess.executable, arguments, environment: environment,
                                               stdout: .file(stdoutPath), stderr: .file(stderrPath))
    }

    deinit {
        if exit == nil {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
        }
    }

    var pid: pid_t { child.pid }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Whether the process is still running (not a zombie, not gone).
    var isRunning: Bool {
        guard let state = Self.statFields(pid)?.first else { return false }
        return state != "Z" && state != "X"
    }

    /// User plus system CPU time used so far, in seconds, from `/proc/PID/stat`.
    func cpuSeconds() -> Double? {
        guard let fields = Self.statFields(pid), fields.count > 12,
              let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The fields of `/proc/PID/stat` after `(comm)`: `[0]` is the state (field 3), `[11]` utime, `[12]` stime.
    private static func statFields(_ pid: pid_t) -> [String]? {
        guard let text = ChildProcess.procFile(pid, "stat"), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }

    /// Sends `signal` and waits (at most `timeout` seconds, then SIGKILL) for the process to end.
    func stop(_ signal: Int32 = SIGTERM, timeout: Double = 10) -> ChildProcess.Exit {
        if let exit { return exit }
        child.send(signal)
        let ended = child.wait(timeout: timeout)
        exit = ended
        return ended
    }
}
