/// Shell completion scripts generated from a ``CommandSpec`` tree: the same specs that parse the command line and
/// write `--help`, so completion offers exactly the subcommands and options the parser accepts.
///
/// Every script walks the words before the cursor as the parser does: a word naming a subcommand of the command
/// reached so far descends into it, an option taking a value skips that value, `--` ends options, an option on a
/// command with a default subcommand selects that subcommand, and `help` first means "help about" (subcommand
/// names follow). Then it offers the value of the option just before the cursor, the options (when the word begins
/// with `-`), the subcommands, or what the next positional argument takes (files, directories, fixed words).
public enum CompletionScript {
    /// The completion script of `root` for `shell`, to be sourced (bash, zsh) or saved in a completions directory.
    public static func script(for shell: Shell, root: CommandSpec) -> String {
        let nodes = CompletionNode.nodes(of: root)
        switch shell {
        case .bash: return BashCompletion(program: root.name, nodes: nodes).script
        case .zsh: return ZshCompletion(program: root.name, nodes: nodes).script
        case .fish: return FishCompletion(program: root.name, nodes: nodes).script
        }
    }

    /// The `completion` subcommand a program adds to its tree: `tool completion bash|zsh|fish`.
    public static func command(program: String) -> CommandSpec {
        CommandSpec(
            name: "completion", abstract: "Print the shell completion script for bash, zsh or fish.",
            discussion: """
              bash: `source <(\(program) completion bash)` in ~/.bashrc, or save it as
              /usr/share/bash-completion/completions/\(program). zsh: save it as `_\(program)` in a directory of
              $fpath (before `compinit`), or `source <(\(program) completion zsh)` after `compinit`. fish: save it as
              ~/.config/fish/completions/\(program).fish.
            """,
            arguments: [Self.shell.spec])
    }

    /// The `completion` command's argument.
    static let shell = Argument("shell", help: "bash, zsh or fish.", completion: .choices(Shell.allCases.map(\.rawValue)))

    /// The script `command` (a parsed `completion SHELL`) asks for.
    /// - Throws: ``UsageError`` for a shell other than bash, zsh or fish.
    public static func script(for command: ParsedCommand, root: CommandSpec) throws(UsageError) -> String {
        let name = command[Self.shell] ?? ""
        guard let shell = Shell(rawValue: name) else {
            throw UsageError("Unknown shell '\(name)'; give bash, zsh or fish", path: command.path)
        }
        return script(for: shell, root: root)
    }
}

/// The bash script: `complete -F _tool tool`, with the completion function reading `COMP_WORDS`/`COMP_CWORD`.
struct BashCompletion {
    let program: String
    let nodes: [CompletionNode]

    var script: String {
        let function = "_" + ShellQuote.identifier(program)
        var text = """
            # bash completion for \(program), generated from its command specs (`\(program) completion bash`).

            # Sets subs, opts, valued (options taking a value) and fallback (the default subcommand) for command $1;
            # fails for a command that has no entry.
            \(function)_describe() {
                case "$1" in

            """
        for node in nodes {
            text += "        \(ShellQuote.single(node.key))) subs=\(ShellQuote.single(node.subcommands.map(\.name).joined(separator: " ")))"
            text += "; opts=\(ShellQuote.single(node.options.map(\.token).joined(separator: " ")))"
            text += "; valued=\(ShellQuote.single(node.valued.map(\.token).joined(separator: " ")))"
            text += "; fallback=\(ShellQuote.single(node.fallback ?? "")) ;;\n"
        }
        text += """
                    *) subs=''; opts=''; valued=''; fallback=''; return 1 ;;
                esac
            }

            # Completes $3 as the value of option $2 (or of positional argument #N) of command $1.
            \(function)_values() {
                case "$1|$2" in

            """
        for node in nodes {
            let entries = node.valued.map { ($0.token, $0.completion) }
                + node.arguments.enumerated().map { ("#\($0.offset)", $0.element) }
            for (token, completion) in entries {
                let action: String
                switch completion {
                case .none: continue
                case .file: action = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$3\"))"
                case .directory: action = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$3\"))"
                case .choices(let words): action = "COMPREPLY=($(compgen -W \(ShellQuote.single(words.joined(separator: " "))) -- \"$3\"))"
                }
                text += "        \(ShellQuote.single(node.key + "|" + token))) \(action) ;;\n"
            }
        }
        text += """
                    *) COMPREPLY=() ;;
                esac
            }

            \(function)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" cmdpath='' word expect='' position=0 ended=0 i
                local subs opts valued fallback
                COMPREPLY=()
                \(function)_describe ''
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    # bash splits `--format=csv` at `=` (COMP_WORDBREAKS): the `=` still awaits the value.
                    if [[ -n "$expect" ]]; then [[ "$word" == = ]] || expect=''; continue; fi
                    if [[ $ended -eq 0 && "$word" == -- ]]; then ended=1; continue; fi
                    if [[ $ended -eq 0 && "$word" == -?* ]]; then
                        if [[ -n "$fallback" ]]; then
                            cmdpath="${cmdpath:+$cmdpath }$fallback"; \(function)_describe "$cmdpath"
                        fi
                        if [[ "$word" != *=* && " $valued " == *" $word "* ]]; then expect="$word"; fi
                        continue
                    fi
                    if [[ $ended -eq 0 && " $subs " == *" $word "* ]]; then
                        # The implicit `help` has no entry of its own: `help config` completes like `config`.
                        if \(function)_describe "${cmdpath:+$cmdpath }$word"; then
                            cmdpath="${cmdpath:+$cmdpath }$word"; position=0
                        else
                            \(function)_describe "$cmdpath"
                        fi
                        continue
                    fi
                    position=$((position + 1))
                done
                if [[ -n "$expect" ]]; then
                    [[ "$cur" == = ]] && cur=''
                    \(function)_values "$cmdpath" "$expect" "$cur"; return 0
                fi
                if [[ $ended -eq 0 && "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return 0; fi
                if [[ $ended -eq 0 && -n "$subs" ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return 0; fi
                \(function)_values "$cmdpath" "#$position" "$cur"
                return 0
            }

            complete -F \(function) \(program)

            """
        return text
    }
}
