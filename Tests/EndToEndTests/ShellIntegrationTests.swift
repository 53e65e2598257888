import TestSupport
import Foundation
import Testing

/// What comes with the built binaries around the command line: completion scripts loaded into the real shells,
/// man pages checked by mandoc and kept in sync with docs/man, and the systemd unit in docs checked by systemd.
/// A test whose tool is absent is skipped with a one-line reason, except under `CI=true`, where it fails
/// (`.ci/run` installs zsh, fish and mandoc).
@Suite struct ShellIntegrationTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A program on PATH, or `nil`.
    static func tool(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Whether a test needing `name` runs: it is installed, or this is CI (where its absence is a failure).
    static func shouldTest(_ name: String) -> Bool { tool(name) != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// `name`'s path, or an error saying it is missing (reached only under CI, see ``shouldTest(_:)``).
    static func require(_ name: String) throws -> String {
        guard let path = tool(name) else {
            throw MissingProgram(name: name)
        }
        return path
    }

    /// Single-quoted for a POSIX shell.
    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs `program arguments…` with a clean environment in `scratch`.
    private static func run(_ program: String, _ arguments: [String], in scratch: ExpenseProcess) throws -> ExpenseProcess.Result {
        try ExpenseProcess.run(program, arguments, environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                                                                 "HOME": scratch.directory, "LANG": "C.UTF-8", "TERM": "dumb"],
                               scratch: scratch.directory)
    }

    @Test(.enabled(if: shouldTest("bash"), "bash is not installed"))
    func bashCompletesTheRealCommands() async throws {
        try await onOwnThread {
            let bash = try Self.require("bash")
            let scratch = try ExpenseProcess()
            let program = """
                source <(\(Self.quoted(ExpenseProcess.executable)) completion bash) || exit 9
                source <(\(Self.quoted(ExpenseProcess.daemonExecutable)) completion bash) || exit 8
                offer() { local f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); $f; echo "${COMPREPLY[*]}"; }
                offer _expense expense li
                offer _expense expense resolve abcd --t
                offer _expense expense completion ''
                offer _expense expense help con
                offer _expensed expensed --li
                offer _expensed expensed ledger l
                """
            let result = try Self.run(bash, ["--norc", "--noprofile", "-c", program], in: scratch)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            #expect(result.stdout == "list\n--theirs --tag\nbash zsh fish\nconfig conflicts\n--listen\nlist\n", "\(result)")
        }
    }

    @Test(.enabled(if: shouldTest("zsh"), "zsh is not installed"))
    func zshLoadsTheRealScripts() async throws {
        try await onOwnThread {
            let zsh = try Self.require("zsh")
            let scratch = try ExpenseProcess()
            for executable in [ExpenseProcess.executable, ExpenseProcess.daemonExecutable] {
                let name = URL(fileURLWithPath: executable).lastPathComponent
                let script = try scratch.run(["completion", "zsh"], executable: executable)
                #expect(script.status == 0 && script.stdout.hasPrefix("#compdef \(name)\n"))
                let file = scratch.directory + "/_" + name
                try script.stdout.write(toFile: file, atomically: true, encoding: .utf8)
                let syntax = try Self.run(zsh, ["-n", file], in: scratch)
                #expect(syntax.status == 0 && syntax.stderr == "", "\(syntax)")
            }
            // Through compsys itself: compinit, then the function compdef registered for `expense`.
            let program = """
                autoload -Uz compinit && compinit -u -d \(Self.quoted(scratch.directory + "/zcompdump")) || exit 9
                source <(\(Self.quoted(ExpenseProcess.executable)) completion zsh) || exit 8
                print -r -- ${_comps[expense]}
                _expense_complete sum; print -r -- $kind ${${(M)reply:#sum*}%%:*}   # compsys keeps those matching
                _expense_complete export --format ''; print -r -- $kind $reply
                """
            let result = try Self.run(zsh, ["-f", "-c", program], in: scratch)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            #expect(result.stdout == "_expense\ndescribe summary\nwords csv json hledger beancount\n", "\(result)")
        }
    }

    @Test(.enabled(if: shouldTest("fish"), "fish is not installed"))
    func fishCompletesTheRealCommands() async throws {
        try await onOwnThread {
            let fish = try Self.require("fish")
            let scratch = try ExpenseProcess()
            let program = """
                \(Self.quoted(ExpenseProcess.executable)) completion fish | source; or exit 9
                \(Self.quoted(ExpenseProcess.daemonExecutable)) completion fish | source; or exit 8
                complete -C 'expense li'
                complete -C 'expense config set '
                complete -C 'expensed ledger add work --cur'
                """
            let result = try Self.run(fish, ["--no-config", "-c", program], in: scratch)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            #expect(result.stdout == "list\tList expenses by date.\ncurrency\nlocale\nme\ntimezone\n--currency\tThe ledger's currency (default: USD).\n",
                    "\(result)")
        }
    }

    @Test(arguments: [(ExpenseProcess.executable, "docs/man/expense.1"), (ExpenseProcess.daemonExecutable, "docs/man/expensed.8")])
    func manPagesInDocsAreTheGeneratedOnes(executable: String, page: String) async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let generated = try scratch.run(["man"], executable: executable)
            #expect(generated.status == 0 && generated.stderr == "")
            let committed = try String(contentsOfFile: Self.packageRoot + "/" + page, encoding: .utf8)
            #expect(generated.stdout == committed, "\(page) is stale: run Scripts/generate-man")
        }
    }

    @Test(.enabled(if: shouldTest("mandoc"), "mandoc is not installed"),
          arguments: ["docs/man/expense.1", "docs/man/expensed.8"])
    func manPagesPassMandocLint(page: String) async throws {
        try await onOwnThread {
            let mandoc = try Self.require("mandoc")
            let scratch = try ExpenseProcess()
            let lint = try Self.run(mandoc, ["-T", "lint", "-W", "warning", Self.packageRoot + "/" + page], in: scratch)
            #expect(lint.status == 0 && lint.stdout == "" && lint.stderr == "", "\(lint)")
            let text = try Self.run(mandoc, ["-T", "ascii", Self.packageRoot + "/" + page], in: scratch)
            #expect(text.status == 0)
            // Bold and underline are overstruck (`N\bN`); the plain text is what is left without them.
            let plain = text.stdout.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
            for section in ["NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
                #expect(plain.contains("\n" + section + "\n"), "\(page) lacks \(section)")
            }
        }
    }

    /// The unit in docs, with ExecStart pointing at the built daemon (verify checks the binary exists), passes
    /// `systemd-analyze verify`, and its exposure score stays low.
    @Test(.enabled(if: shouldTest("systemd-analyze"), "systemd-analyze is not installed"))
    func systemdUnitVerifies() async throws {
        try await onOwnThread {
            let analyze = try Self.require("systemd-analyze")
            let scratch = try ExpenseProcess()
            let unit = try String(contentsOfFile: Self.packageRoot + "/docs/expensed.service", encoding: .utf8)
            #expect(unit.contains("ExecStart=/usr/local/bin/expensed serve --data ${STATE_DIRECTORY} "))
            for setting in ["DynamicUser=yes", "StateDirectory=expensed", "ProtectSystem=strict", "NoNewPrivileges=yes",
                            "PrivateTmp=yes", "ProtectHome=yes", "RestrictAddressFamilies="] {
                #expect(unit.contains("\n" + setting), "the unit lacks \(setting)")
            }
            let file = scratch.directory + "/expensed.service"
            try unit.replacingOccurrences(of: "/usr/local/bin/expensed", with: ExpenseProcess.daemonExecutable)
                .write(toFile: file, atomically: true, encoding: .utf8)
            let verify = try Self.run(analyze, ["verify", "--man=no", file], in: scratch)
            #expect(verify.status == 0 && verify.stderr == "", "\(verify)")
            let security = try Self.run(analyze, ["security", "--offline=yes", "--no-pager", file], in: scratch)
            let score = security.stdout.components(separatedBy: "Overall exposure level for expensed.service: ").dropFirst().first
                .flatMap { Double($0.prefix { $0 == "." || $0.isNumber }) } // not money: systemd's exposure score
            #expect(score.map { $0 <= 2.0 } == true, "\(security)")
        }
    }
}

/// A program a test needs is not installed (a failure only under `CI=true`; elsewhere the test is skipped).
struct MissingProgram: Error, CustomStringConvertible {
    var name: String
    var description: String { "\(name) is not installed; .ci/run installs it on CI" }
}
