import TestSupport
import Foundation
import Glibc
import ProcessSpawn
import Testing

/// Standard output that goes away or fills up: a clean exit 74 and a message, never a crash.
@Suite struct ExpenseOutputTests {
    /// Enough expenses that a listing outgrows a pipe's 64 KiB buffer.
    static func filled() throws -> ExpenseProcess {
        let expense = try ExpenseProcess()
        var csv = "date,amount,currency,category,note\n"
        for index in 1...3000 { csv += "2026-01-01,\(index).00,USD,category\(index % 7),note number \(index)\n" }
        let imported = try expense.run(["import", "-"], stdin: csv)
        #expect(imported.status == 0, "\(imported)")
        return expense
    }

    /// `expense … | head -1` run by a parent that ignores SIGPIPE (the child inherits the ignore): every write
    /// after the reader has gone fails with EPIPE.
    @Test(arguments: [["list"], ["list", "--json"], ["export"], ["export", "--format", "json"]])
    func aClosedPipeWithSIGPIPEIgnoredIsAnIOErrorNotACrash(arguments: [String]) async throws {
        try await onOwnThread {
            let expense = try Self.filled()
            var environment = ProcessInfo.processInfo.environment
            environment["EXPENSE_HOME"] = expense.home
            let errPath = expense.directory + "/closed-pipe.err"
            let (child, stdout, _) = try ChildProcess.spawn(
                "/bin/sh", ["-c", "trap '' PIPE; exec \"$0\" \"$@\"", ExpenseProcess.executable] + arguments,
                environment: environment, stdout: .pipe, stderr: .file(errPath))
            close(stdout!)  // the reader goes away at once
            let exit = child.wait(timeout: 60)
            let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            #expect(exit.code == 74, "\(arguments): \(exit)\n\(stderr)")
            #expect(stderr == "Error: write_failed: cannot write to standard output: Broken pipe\n", "\(arguments)")
        }
    }

    /// A category or note holding a right-to-left override (or an isolate, a mark) would reverse the rest of the
    /// terminal row it is printed in; `list` shows it escaped, as every message and log line does.
    @Test(arguments: ["\u{202E}", "\u{2067}", "\u{200F}"])
    func listEscapesBidirectionalControls(control: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "12.50", "food" + control + "evil", "--note", "n" + control + "ote"])
            let listed = try expense.succeed(["list"])
            #expect(!listed.unicodeScalars.contains { $0 == control.unicodeScalars.first }, "\(listed.debugDescription)")
            let code = String(control.unicodeScalars.first?.value ?? 0, radix: 16, uppercase: true)
            #expect(listed.contains("food\\u{\(code)}evil") && listed.contains("n\\u{\(code)}ote"), "\(listed)")
            let json = try expense.succeed(["list", "--json"])
            #expect(json.contains("food" + control + "evil"), "--json keeps the text as it is")
        }
    }

    @Test func aFullStandardOutputIsAnIOErrorNotACrash() async throws {
        try await onOwnThread {
            let expense = try Self.filled()
            var environment = ProcessInfo.processInfo.environment
            environment["EXPENSE_HOME"] = expense.home
            for arguments in [["list"], ["export"], ["--version"]] {
                let errPath = expense.directory + "/full-\(arguments[0]).err"
                let (exit, _) = try ChildProcess.run(ExpenseProcess.executable, arguments, environment: environment,
                                                     stdout: .file("/dev/full"), stderr: .file(errPath), timeout: 60)
                let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
                #expect(exit.code == 74, "\(arguments): \(exit)\n\(stderr)")
                #expect(stderr.hasPrefix("Error: write_failed: cannot write to standard output: "), "\(arguments): \(stderr)")
            }
        }
    }
}
