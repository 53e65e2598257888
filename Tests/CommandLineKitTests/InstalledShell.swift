import Foundation
import ProcessSpawn
import Testing

/// A shell (or other program) on this machine's PATH, run with a script: what the completion and man page
/// tests load their generated text into. A test whose program is absent is skipped with a one-line reason,
/// except under `CI=true`, where it runs and fails (CI installs them: `.ci/run`).
struct InstalledShell {
    /// The program's path.
    let path: String

    /// `name` found on PATH, or `nil`.
    init?(_ name: String) {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let found = directories.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return nil
        }
        path = found
    }

    /// Whether a test of `name` runs: it is installed, or this is CI (where a missing program is a failure).
    static func shouldTest(_ name: String) -> Bool {
        InstalledShell(name) != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// `name`, or an error saying it is missing (only reached under CI, see ``shouldTest(_:)``).
    static func require(_ name: String) throws -> InstalledShell {
        guard let shell = InstalledShell(name) else {
            throw MissingProgram(name: name)
        }
        return shell
    }

    /// What a run printed and returned.
    struct Result: CustomStringConvertible {
        var stdout: String
        var stderr: String
        var status: Int32
        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
        /// Standard output's lines.
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs the program with `arguments` in `directory`'s environment (HOME there too, so no user
    /// configuration is read), output to files (a full pipe could block the child).
    func run(_ arguments: [String], in directory: String) throws -> Result {
        let name = directory + "/" + UUID().uuidString
        defer { for path in [name + ".out", name + ".err"] { try? FileManager.default.removeItem(atPath: path) } }
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory,
                           "XDG_CONFIG_HOME": directory + "/config", "XDG_DATA_HOME": directory + "/data", "TERM": "dumb",
                           "LANG": "C.UTF-8"]
        let (exit, _) = try ChildProcess.run(path, arguments, environment: environment,
                                             stdout: .file(name + ".out"), stderr: .file(name + ".err"), timeout: 60)
        return Result(stdout: (try? String(contentsOfFile: name + ".out", encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: name + ".err", encoding: .utf8)) ?? "",
                      status: exit.code ?? 128 + (exit.signal ?? 0))
    }
}

/// A program a test needs is not installed (a failure only under `CI=true`; elsewhere the test is skipped).
struct MissingProgram: Error, CustomStringConvertible {
    var name: String
    var description: String { "\(name) is not installed; .ci/run installs it on CI" }
}


