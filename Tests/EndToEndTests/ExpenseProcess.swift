import Foundation
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = home
        environment["EXPENSE_STORE"] = nil
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        // Files, not pipes: a full pipe can never block the child while we wait for it.
        let name = UUID().uuidString
        let outPath = directory + "/\(name).out", errPath = directory + "/\(name).err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let inPath = directory + "/\(name).in"
            _ = FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        return Result(stdout: try String(contentsOfFile: outPath, encoding: .utf8),
                      stderr: try String(contentsOfFile: errPath, encoding: .utf8),
                      status: process.terminationStatus)
    }

    /// Runs a command that must succeed and returns its standard output.
    @discardableResult
    func succeed(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return result.stdout
    }
}
