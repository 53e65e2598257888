import Dispatch
import Foundation
import Glibc
import Synchronization

/// A child started with `posix_spawn`, so its peak memory can be read from `wait4`'s rusage.
struct ChildProcess {
    /// Where a child's standard output or error goes.
    enum Output {
        /// `/dev/null`.
        case discard
        /// Appended to this file.
        case file(String)
        /// A pipe; the parent's reading end is returned by ``spawn(_:_:environment:stdout:stderr:)``.
        case pipe
    }

    /// How a child ended.
    struct Exit {
        /// The exit code, or `nil` when a signal ended it.
        var code: Int32?
        /// The signal that ended it, if any.
        var signal: Int32?
        /// Peak resident memory of the child (and its waited-for children), in KiB (`ru_maxrss`).
        var maxResidentKiB: Int
        /// Whether the bench killed it after its timeout.
        var timedOut: Bool

        var succeeded: Bool { code == 0 }
        var summary: String {
            if timedOut { return "timed out" }
            if let code { return "exit \(code)" }
            return "signal \(signal ?? 0)"
        }
    }

    let pid: pid_t

    /// Starts `path` with `arguments`, in `environment` (stdin is `/dev/null`).
    /// - Returns: the child, and the reading end of its stdout when `stdout` is `.pipe`.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String],
                      stdout: Output, stderr: Output) throws(BenchError) -> (ChildProcess, Int32?) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        var readEnd: Int32?
        var pipeWriteEnd: Int32 = -1
        for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let file):
                posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                // pipe2 is not in Glibc's module map; children are spawned from one thread only, so
                // setting FD_CLOEXEC right after pipe() leaves no window for another spawn to inherit them.
                guard pipe(&ends) == 0 else { throw .lastSystemError("pipe") }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                readEnd = ends[0]
                pipeWriteEnd = ends[1]
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
            }
        }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        if pipeWriteEnd >= 0 { close(pipeWriteEnd) }
        guard result == 0 else {
            if let readEnd { close(readEnd) }
            throw .child("cannot start \(path): \(String(cString: strerror(result)))")
        }
        return (ChildProcess(pid: pid), readEnd)
    }

    /// Runs a command to completion and returns how it ended (with its rusage), killing it after `timeout`.
    static func run(_ path: String, _ arguments: [String], environment: [String: String],
                    stdout: Output = .discard, stderr: Output = .discard,
                    timeout: Double) throws(BenchError) -> (exit: Exit, seconds: Double) {
        let began = MonotonicClock.now()
        let (child, _) = try spawn(path, arguments, environment: environment, stdout: stdout, stderr: stderr)
        let exit = child.wait(timeout: timeout)
        return (exit, MonotonicClock.now() - began)
    }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the child with `wait4`; after `timeout` seconds it is sent SIGKILL.
    func wait(timeout: Double) -> Exit {
        let watchdog = Watchdog(pid: pid)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { watchdog.fire() }
        // Wait for the exit without reaping (WNOWAIT), disarm, then reap: the pid cannot be reused
        // by another process while the watchdog may still fire.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        let timedOut = watchdog.disarm()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return Exit(code: signal == 0 ? (status >> 8) & 0xff : nil, signal: signal == 0 ? nil : signal,
                    maxResidentKiB: usage.ru_maxrss, timedOut: timedOut)
    }

    /// Resident memory now, in KiB, from `/proc/PID/status` (`VmRSS`).
    func residentKiB() -> Int? {
        // /proc files report size 0, so read them to EOF with read(2) rather than by their size.
        let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes += chunk[0..<count] } else if count < 0 && errno == EINTR { continue } else { break }
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}

/// Kills a child once unless disarmed first. The child is reaped only after `disarm`, so the pid it kills is
/// never another process's.
private final class Watchdog: Sendable {
    private let pid: pid_t
    /// (disarmed, fired)
    private let state = Mutex<(Bool, Bool)>((false, false))

    init(pid: pid_t) { self.pid = pid }

    func fire() {
        state.withLock { state in
            guard !state.0 else { return }
            state.1 = true
            kill(pid, SIGKILL)
        }
    }

    /// - Returns: whether it fired.
    func disarm() -> Bool {
        state.withLock { state in
            state.0 = true
            return state.1
        }
    }
}
