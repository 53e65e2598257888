import TestSupport
import CommandLineKit
import Foundation
import Testing

/// A tool with nested subcommands, fixed-word, file and directory values, and a quote and a colon in its help.
private let tool = CommandSpec(
    name: "tool", abstract: "A test tool.",
    subcommands: [
        CommandSpec(name: "add", abstract: "Add a thing (it's quick: really).",
                    arguments: [ArgumentSpec("amount", help: "How much."), ArgumentSpec("category", help: "What.")],
                    options: [.option("date", short: "d", value: "date", help: "The day."),
                              .option("note", value: "text", help: "A note: free text."), .flag("json", help: "JSON.")]),
        CommandSpec(name: "list", abstract: "List things."),
        CommandSpec(name: "export", abstract: "Export.",
                    options: [.option("format", value: "csv|json", help: "The format."),
                              .option("output", value: "file", help: "The file.")]),
        CommandSpec(name: "import", abstract: "Import.", arguments: [ArgumentSpec("file", help: "The file.")]),
        CommandSpec(name: "config", abstract: "Configure.", subcommands: [
            CommandSpec(name: "set", abstract: "Set a key.",
                        arguments: [ArgumentSpec("key", help: "K.", completion: .choices(["currency", "locale"])),
                                    ArgumentSpec("value", help: "V.")]),
            CommandSpec(name: "get", abstract: "Get a key."),
        ]),
    ])

/// A daemon whose options after the bare program name belong to its default subcommand.
private let daemon = CommandSpec(
    name: "daemon", abstract: "A test daemon.",
    subcommands: [
        CommandSpec(name: "serve", abstract: "Serve.",
                    options: [.option("data", value: "dir", help: "The data."), .option("listen", value: "host:port", help: "Where."),
                              .flag("trust-network", help: "Trust.")]),
        CommandSpec(name: "ledger", abstract: "Ledgers.", subcommands: [
            CommandSpec(name: "add", abstract: "Add one.", arguments: [ArgumentSpec("name", help: "N.")]),
            CommandSpec(name: "list", abstract: "List them."),
        ]),
    ],
    defaultSubcommand: "serve")

/// What completing the last word should offer.
enum Offer: Sendable, CustomStringConvertible {
    /// Exactly these words, in any order.
    case words([String])
    /// File names (the scratch directory holds `bank.csv` and the directory `data1`).
    case files
    /// Directory names only.
    case directories

    var description: String {
        switch self {
        case .words(let words): return words.joined(separator: " ")
        case .files: return "<files>"
        case .directories: return "<directories>"
        }
    }
}

/// One completion: the program's spec, the words up to the cursor (the last is the one being completed).
struct CompletionCase: Sendable, CustomStringConvertible {
    var daemon = false
    var words: [String]
    var offer: Offer
    var root: CommandSpec { daemon ? daemonSpec : toolSpec }
    var description: String { words.joined(separator: " ") + "⇥ → \(offer)" }
}

private let toolSpec = tool
private let daemonSpec = daemon

let completionCases: [CompletionCase] = [
    CompletionCase(words: ["tool", ""], offer: .words(["add", "list", "export", "import", "config", "help"])),
    CompletionCase(words: ["tool", "li"], offer: .words(["list"])),
    CompletionCase(words: ["tool", "add", "--"], offer: .words(["--date", "--note", "--json", "--help"])),
    CompletionCase(words: ["tool", "add", "--n"], offer: .words(["--note"])),
    CompletionCase(words: ["tool", "add", "-d", "2026-01-01", "--j"], offer: .words(["--json"])),
    CompletionCase(words: ["tool", "add", "-d", "2026-01-01", "--n"], offer: .words(["--note"])),
    CompletionCase(words: ["tool", "add", "--note", ""], offer: .words([])),
    CompletionCase(words: ["tool", "export", "--format", ""], offer: .words(["csv", "json"])),
    CompletionCase(words: ["tool", "export", "--format", "j"], offer: .words(["json"])),
    CompletionCase(words: ["tool", "export", "--output", ""], offer: .files),
    CompletionCase(words: ["tool", "import", ""], offer: .files),
    CompletionCase(words: ["tool", "config", ""], offer: .words(["set", "get"])),
    CompletionCase(words: ["tool", "config", "set", ""], offer: .words(["currency", "locale"])),
    CompletionCase(words: ["tool", "config", "set", "currency", ""], offer: .words([])),
    CompletionCase(words: ["tool", "help", "co"], offer: .words(["config"])),
    CompletionCase(words: ["tool", "help", "config", ""], offer: .words(["set", "get"])),
    CompletionCase(words: ["tool", "--"], offer: .words(["--version", "--help"])),
    CompletionCase(words: ["tool", "add", "--", "--"], offer: .words([])),
    CompletionCase(daemon: true, words: ["daemon", ""], offer: .words(["serve", "ledger", "help"])),
    CompletionCase(daemon: true, words: ["daemon", "--li"], offer: .words(["--listen"])),
    CompletionCase(daemon: true, words: ["daemon", "--data", ""], offer: .directories),
    CompletionCase(daemon: true, words: ["daemon", "--data", "x", "--t"], offer: .words(["--trust-network"])),
    CompletionCase(daemon: true, words: ["daemon", "ledger", "l"], offer: .words(["list"])),
    CompletionCase(daemon: true, words: ["daemon", "serve", "--d"], offer: .words(["--data"])),
]

/// Checks what a shell offered against `expected`, in `scratch` (which holds `bank.csv` and `data1/`).
private func check(_ offered: [String], _ expected: Offer, _ context: CompletionCase, _ output: CustomStringConvertible,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let names = Set(offered.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
    switch expected {
    case .words(let words): #expect(names == Set(words), "\(context)\n\(output)", sourceLocation: sourceLocation)
    case .files: #expect(names == ["bank.csv", "data1"], "\(context)\n\(output)", sourceLocation: sourceLocation)
    case .directories: #expect(names == ["data1"], "\(context)\n\(output)", sourceLocation: sourceLocation)
    }
}

/// A scratch directory whose `work` directory (where the shells complete) holds `bank.csv` and `data1/` only.
private func scratchWithFiles() throws -> (scratch: TemporaryDirectory, work: String) {
    let scratch = try TemporaryDirectory("commandlinekit")
    try FileManager.default.createDirectory(atPath: scratch.path + "/work/data1", withIntermediateDirectories: true)
    try scratch.write("work/bank.csv", "date,amount\n")
    return (scratch, scratch.path + "/work")
}

/// Single-quoted for a POSIX shell command line.
private func quoted(_ words: [String]) -> String {
    words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
}

@Suite struct CompletionScriptTests {
    /// bash: the script is sourced and its function called as bash's completion would, with COMP_WORDS set.
    @Test(.enabled(if: InstalledShell.shouldTest("bash"), "bash is not installed"), arguments: completionCases)
    func bashOffersWhatTheParserAccepts(_ completion: CompletionCase) async throws {
        try await onOwnThread {
            let bash = try InstalledShell.require("bash")
            let (scratch, work) = try scratchWithFiles()
            let script = try scratch.write("tool.bash", CompletionScript.script(for: .bash, root: completion.root))
            let program = "_" + completion.root.name
            let result = try bash.run(["--norc", "--noprofile", "-c", """
                set -u
                cd \(quoted([work])) && source \(quoted([script])) || exit 9
                complete -p \(completion.root.name) >/dev/null || exit 8
                COMP_WORDS=(\(quoted(completion.words))); COMP_CWORD=\(completion.words.count - 1); COMPREPLY=()
                \(program) && printf '%s\\n' "${COMPREPLY[@]}"
                """], in: scratch.path)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            check(result.lines, completion.offer, completion, result)
        }
    }

    /// zsh: `zsh -n` accepts the script, and its `_tool` function, run with compsys's `_describe`, `compadd` and
    /// `_files` replaced by stand-ins that print what they were given, offers the expected candidates.
    @Test(.enabled(if: InstalledShell.shouldTest("zsh"), "zsh is not installed"), arguments: completionCases)
    func zshOffersWhatTheParserAccepts(_ completion: CompletionCase) async throws {
        try await onOwnThread {
            let zsh = try InstalledShell.require("zsh")
            let (scratch, work) = try scratchWithFiles()
            let script = try scratch.write("_" + completion.root.name, CompletionScript.script(for: .zsh, root: completion.root))
            let syntax = try zsh.run(["-n", script], in: scratch.path)
            #expect(syntax.status == 0 && syntax.stderr == "", "\(syntax)")
            let result = try zsh.run(["-f", "-c", """
                cd \(quoted([work])) || exit 9
                # Stand-ins for compsys: print the candidates that match the word being completed.
                _describe() { local entry; for entry in "${(@P)4}"; do [[ $entry == ${words[CURRENT]}* ]] && print -r -- "${entry%%:*}"; done; true; }
                compadd() { local entry; for entry in "${(@P)2}"; do [[ $entry == ${words[CURRENT]}* ]] && print -r -- $entry; done; true; }
                _files() { if [[ $1 == -/ ]]; then print -rl -- *(/); else print -rl -- *; fi; }
                source \(quoted([script])) || exit 8
                words=(\(quoted(completion.words))); CURRENT=\(completion.words.count)
                _\(completion.root.name) || true
                """], in: scratch.path)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            check(result.lines, completion.offer, completion, result)
        }
    }

    /// fish: `complete -C` on the command line, as fish's own completion pager asks.
    @Test(.enabled(if: InstalledShell.shouldTest("fish"), "fish is not installed"), arguments: completionCases)
    func fishOffersWhatTheParserAccepts(_ completion: CompletionCase) async throws {
        try await onOwnThread {
            let fish = try InstalledShell.require("fish")
            let (scratch, work) = try scratchWithFiles()
            let script = try scratch.write(completion.root.name + ".fish", CompletionScript.script(for: .fish, root: completion.root))
            let line = completion.words.joined(separator: " ")
            let result = try fish.run(["--no-config", "-c", """
                cd \(quoted([work])); or exit 9
                source \(quoted([script])); or exit 8
                complete -C \(quoted([line]))
                """], in: scratch.path)
            #expect(result.status == 0 && result.stderr == "", "\(result)")
            check(result.lines.map { String($0.prefix { $0 != "\t" }) }, completion.offer, completion, result)
        }
    }

    /// `--format=j` completes the value in each shell's own way: bash splits the word at `=`, zsh and fish do not.
    @Test(.enabled(if: ["bash", "zsh", "fish"].allSatisfy(InstalledShell.shouldTest), "bash, zsh or fish is not installed"))
    func equalsFormCompletesTheValue() async throws {
        try await onOwnThread {
            let (scratch, work) = try scratchWithFiles()
            let bashScript = try scratch.write("tool.bash", CompletionScript.script(for: .bash, root: tool))
            let bash = try InstalledShell.require("bash").run(["--norc", "--noprofile", "-c", """
                cd \(quoted([work])) && source \(quoted([bashScript])) || exit 9
                COMP_WORDS=(tool export --format = j); COMP_CWORD=4; _tool; echo "${COMPREPLY[*]}"
                COMP_WORDS=(tool export --format =); COMP_CWORD=3; _tool; echo "${COMPREPLY[*]}"
                """], in: scratch.path)
            #expect(bash.stdout == "json\ncsv json\n" && bash.stderr == "", "\(bash)")
            let zshScript = try scratch.write("_tool", CompletionScript.script(for: .zsh, root: tool))
            let zsh = try InstalledShell.require("zsh").run(["-f", "-c", """
                source \(quoted([zshScript])) || exit 9
                _tool_complete export --format=j; print -r -- $kind $equals $reply
                """], in: scratch.path)
            #expect(zsh.stdout == "words 1 csv json\n" && zsh.stderr == "", "\(zsh)")
            let fishScript = try scratch.write("tool.fish", CompletionScript.script(for: .fish, root: tool))
            let fish = try InstalledShell.require("fish").run(["--no-config", "-c", """
                source \(quoted([fishScript])); or exit 9
                complete -C 'tool export --format=j'
                """], in: scratch.path)
            #expect(fish.stdout == "--format=json\tThe format.\n" && fish.stderr == "", "\(fish)")
        }
    }

    @Test func descriptionsReachZshAndFish() {
        let zsh = CompletionScript.script(for: .zsh, root: tool)
        #expect(zsh.contains(#"'add:Add a thing (it'\''s quick: really).'"#))
        let fish = CompletionScript.script(for: .fish, root: tool)
        #expect(fish.contains(#"-d 'Add a thing (it\'s quick: really).'"#))
    }

    @Test func completionCommandTakesAShell() throws {
        let root = CommandSpec(name: "tool", abstract: "T.", subcommands: [CompletionScript.command(program: "tool")])
        guard case .run(let command) = try CommandLineParser.parse(["completion", "fish"], root: root) else {
            Issue.record("expected a command")
            return
        }
        #expect(try CompletionScript.script(for: command, root: root).hasPrefix("# fish completion for tool"))
        guard case .run(let wrong) = try CommandLineParser.parse(["completion", "tcsh"], root: root) else { return }
        #expect(throws: UsageError("Unknown shell 'tcsh'; give bash, zsh or fish", path: ["completion"])) {
            try CompletionScript.script(for: wrong, root: root)
        }
        #expect(CompletionScript.script(for: .bash, root: root).contains("'completion|#0') COMPREPLY=($(compgen -W 'bash zsh fish'"))
    }
}
