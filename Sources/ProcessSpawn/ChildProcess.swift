import CEpoll
import Dispatch
import Foundation
import Glibc
import Synchronization
import SystemKit

/// A child process started with `posix_spawn`, for the benchmark and the end-to-end tests.
///
/// Not Foundation's `Process`: on Linux, Swift 6.3's `Process.run()` crashes now and then (a buffer over-read
/// while it lists `/proc/self/fd`, swift-corelibs-foundation PR 5472), which made test runs that start many
/// children flaky. `wait4` here also gives the child's peak memory (`ru_maxrss`).
public struct ChildProcess: Sendable {
    /// Where a child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// Read from this file.
        case file(String)
    }

    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case discard
        /// Appended to this file (created 0644 if missing).
        case file(String)
        /// A pipe; the parent's reading end is returned by ``spawn(_:_:environment:stdin:stdout:stderr:)``.
        case pipe
    }

    /// How a child ended.
    public struct Exit: Sendable, CustomStringConvertible {
        /// The exit code, or `nil` when a signal ended it.
        public var code: Int32?
        /// The signal that ended it, if any.
        public var signal: Int32?
        /// Peak resident memory of the child (and its waited-for children), in KiB (`ru_maxrss`). At least the
        /// spawning process's own resident size at the spawn (see ``ownPeakResidentKiB``).
        public var maxResidentKiB: Int
        /// The child's own peak resident memory, in KiB, sampled while it ran (``wait(timeout:samplingPeakEvery:)``);
        /// `nil` when it was not sampled.
        public var ownPeakResidentKiB: Int? = nil
        /// Whether it was killed after its timeout.
        public var timedOut: Bool

        public var succeeded: Bool { code == 0 }

        public var description: String {
            if timedOut { return "timed out" }
            if let code { return "exit \(code)" }
            return "signal \(signal ?? 0)"
        }
    }

    /// A child that could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The child's process id.
    public let pid: pid_t
    /// Whether ``wait(timeout:samplingPeakEvery:)`` has reaped it, shared by every copy: from then on its number may
    /// be another process's, and ``send(_:)`` sends nothing.
    private let reaped = Reaped()

    private final class Reaped: Sendable {
        let state = Mutex(false)
    }

    // Pipes are made and children spawned under one lock, so that no child started by another thread inherits
    // a pipe's write end in the instant before FD_CLOEXEC is set (pipe2 is not in Glibc's module map). A child
    // holding a stray write end would keep the parent's read from ever seeing end-of-file.
    private static let spawnLock = Mutex(())

    /// Starts `path` with `arguments` in `environment`.
    /// - Returns: the child, and the parent's reading ends of its stdout and stderr where they are `.pipe`.
    public static func spawn(_ path: String, _ arguments: [String], environment: [String: String],
                             stdin: Input = .null, stdout: Output, stderr: Output) throws(SpawnError)
        -> (child: ChildProcess, stdout: Int32?, stderr: Int32?) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .file(let file): posix_spawn_file_actions_addopen(&actions, 0, file, O_RDONLY, 0)
        }
        // The child starts with no signal blocked and every signal at its default action, whatever the spawning
        // thread had (Dispatch's worker threads block most signals, and a child inherits the mask: a daemon
        // started from one would never see its SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }

        return try spawnLock.withLock { _ throws(SpawnError) in
            var readEnds: [Int32: Int32] = [:]
            var writeEnds: [Int32] = []
            defer { writeEnds.forEach { close($0) } }
            for (target, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
                switch output {
                case .discard:
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .file(let file):
                    posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                case .pipe:
                    var ends: [Int32] = [-1, -1]
                    guard pipe(&ends) == 0 else {
                        readEnds.values.forEach { close($0) }
                        throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
                    }
                    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                    readEnds[target] = ends[0]
                    writeEnds.append(ends[1])
                    posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                }
            }
            // Last: the child keeps its three standard descriptors and nothing another thread opened without
            // close-on-exec (a test's file, a socket accepted that instant).
            let closing = cepoll_spawn_close_from(&actions, 3)
            guard closing == 0 else {
                readEnds.values.forEach { close($0) }
                throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(closing)))")
            }
            var pid: pid_t = 0
            let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            guard result == 0 else {
                readEnds.values.forEach { close($0) }
                throw SpawnError(description: "cannot start \(path): \(String(cString: strerror(result)))")
            }
            return (ChildProcess(pid: pid), readEnds[1], readEnds[2])
        }
    }

    /// Runs a command to completion and returns how it ended, killing it after `timeout` seconds.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String],
                           stdin: Input = .null, stdout: Output = .discard, stderr: Output = .discard,
                           timeout: Double, samplingPeakEvery interval: Duration? = nil) throws(SpawnError) -> (exit: Exit, seconds: Double) {
        let began = MonotonicClock.now()
        let (child, _, _) = try spawn(path, arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        let exit = child.wait(timeout: timeout, samplingPeakEvery: interval)
        return (exit, MonotonicClock.now() - began)
    }

    /// Sends `signal` to the child, unless it has been reaped (its number may be another process's by then: a
    /// clean-up that runs late, say, must not kill a stranger).
    /// - Returns: whether it was sent.
    @discardableResult
    public func send(_ signal: Int32) -> Bool {
        reaped.state.withLock { reaped in
            guard !reaped else { return false }
            return kill(pid, signal) == 0
        }
    }

    /// Waits for the child with `wait4`; after `timeout` seconds it is sent SIGKILL. With `interval`, the child's
    /// own peak memory is sampled meanwhile (``Exit/ownPeakResidentKiB``).
    public func wait(timeout: Double, samplingPeakEvery interval: Duration? = nil) -> Exit { // not money: a measurement
        let sampler = interval.map { PeakSampler(pid: pid, interval: $0) }
        let watchdog = Watchdog(pid: pid)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { watchdog.fire() }
        // Wait for the exit without reaping (WNOWAIT), disarm, then reap: the pid cannot be reused
        // by another process while the watchdog may still fire.
        var info = siginfo_t()
        _ = try? syscall(where: "waitid") { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
        let timedOut = watchdog.disarm()
        let ownPeak = sampler?.stop()
        var status: Int32 = 0
        var usage = rusage()
        // Reaped under the lock `send` takes: a signal is either sent before (to the zombie) or not at all.
        reaped.state.withLock { reaped in
            _ = try? syscall(where: "wait4") { wait4(pid, &status, 0, &usage) }
            reaped = true
        }
        let signal = status & 0x7f
        return Exit(code: signal == 0 ? (status >> 8) & 0xff : nil, signal: signal == 0 ? nil : signal,
                    maxResidentKiB: usage.ru_maxrss, ownPeakResidentKiB: ownPeak, timedOut: timedOut)
    }

    /// Resident memory now, in KiB, from `/proc/PID/status` (`VmRSS`).
    public func residentKiB() -> Int? { // not money: a measurement
        Self.statusField("VmRSS:", of: pid)
    }

    /// The number of a `/proc/PID/status` line such as `VmRSS:` (kB); `nil` when the process or line is missing.
    static func statusField(_ name: String, of pid: pid_t) -> Int? { // not money: a measurement
        guard let status = Self.procFile(pid, "status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// The text of `/proc/PID/NAME`, or `nil` when the process is gone.
    ///
    /// /proc files report size 0, so they are read to end of file with read(2), never by their size (Foundation's
    /// `String(contentsOfFile:)` may return nothing for them).
    public static func procFile(_ pid: pid_t, _ name: String) -> String? {
        let descriptor = open("/proc/\(pid)/\(name)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { raw in (try? syscall(where: "read") { read(descriptor, raw.baseAddress, raw.count) }) ?? -1 }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads one line (without its `\n`) from `descriptor`, waiting at most `timeout` seconds in all.
    /// - Returns: `nil` at end of file or on timeout before a newline.
    public static func readLine(from descriptor: Int32, timeout: Double) -> String? { // not money: a measurement
        let deadline = MonotonicClock.now() + timeout
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = (try? syscall(where: "poll") { poll(&poller, 1, Int32(min(remaining * 1000, 60_000)) + 1) }) ?? 0
            guard ready > 0 else { continue }
            guard (try? syscall(where: "read") { read(descriptor, &byte, 1) }) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Reads `descriptor` to end of file on a background thread and discards it, so a child never blocks on a
    /// full pipe; closes it at the end.
    public static func drainInBackground(_ descriptor: Int32) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { raw in (try? syscall(where: "read") { read(descriptor, raw.baseAddress, raw.count) }) ?? -1 }
                if count <= 0 { break }
            }
            close(descriptor)
        }
        thread.start()
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
