import Foundation
import ProcessSpawn
import Testing

/// Runs the real, built `expense` binary as a process, in its own temporary `EXPENSE_HOME`.
final class ExpenseProcess: Sendable {
    /// What one run printed and returned.
    struct Result: CustomStringConvertible {
        var stdout: String
        var stderr: String
        var status: Int32

        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The temporary directory holding `home` and scratch files; removed on release.
    let directory: String
    /// The `EXPENSE_HOME` of every run.
    let home: String

    init() throws {
        directory = NSTemporaryDirectory() + "expense-e2e-" + UUID().uuidString
        home = directory + "/home"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The built `expense` executable.
    static let executable = locate("expense")
    /// The built `expensed` executable (the daemon).
    static let daemonExecutable = locate("expensed")

    /// A built product: beside the test bundle (SwiftPM puts products and the test runner in one directory),
    /// else in `.build/debug` of the package.
    static func locate(_ product: String) -> String {
        var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let path = directory.appendingPathComponent(product).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot.appendingPathComponent(".build/debug/" + product).path
    }

    /// Runs `expense arguments…` (or another built `executable`) with `environment` added, waits, and returns
    /// what it printed.
    func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil,
             executable: String = ExpenseProcess.executable) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = home
        environment["EXPENSE_STORE"] = nil
        for (key, value) in extra { environment[key] = value }
        return try Self.run(executable, arguments, environment: environment, stdin: stdin, scratch: directory)
    }

    /// Runs any program to completion (killed after `timeout` seconds) and returns what it printed.
    /// Output goes to files, not pipes: a full pipe can never block the child while we wait for it.
    static func run(_ path: String, _ arguments: [String], environment: [String: String], stdin: String? = nil,
                    scratch: String, timeout: Double = 120) throws -> Result {
        let name = scratch + "/" + UUID().uuidString
        let outPath = name + ".out", errPath = name + ".err", inPath = name + ".in"
        defer { for path in [outPath, errPath, inPath] { try? FileManager.default.removeItem(atPath: path) } }
        var input = ChildProcess.Input.null
        if let stdin {
            _ = FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
            input = .file(inPath)
        }
        let (exit, _) = try ChildProcess.run(path, arguments, environment: environment, stdin: input,
                                             stdout: .file(outPath), stderr: .file(errPath), timeout: timeout)
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(stdout: stdout, stderr: stderr, status: exit.code ?? 128 + (exit.signal ?? 0))
    }

    /// Runs a command that must succeed and returns its standard output.
    @discardableResult
    func succeed(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return result.stdout
    }
}
