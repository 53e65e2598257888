/// The fish script: `complete -c tool …` entries whose conditions ask `__tool_walk`, which walks the command
/// line as the parser does, where the cursor is (`__tool_in PATH`: below that command; `__tool_at PATH [N]`: there,
/// not after an option awaiting its value, and at positional argument N).
struct FishCompletion {
    let program: String
    let nodes: [CompletionNode]

    var script: String {
        let prefix = "__" + ShellQuote.identifier(program)
        func quote(_ text: String) -> String { ShellQuote.single(text, fish: true) }
        var text = """
            # fish completion for \(program), generated from its command specs (`\(program) completion fish`).

            # Sets the subcommands, the options taking a value and the default subcommand of command $argv[1];
            # fails for a command that has no entry.
            function \(prefix)_describe
                switch "$argv[1]"

            """
        for node in nodes {
            text += "        case \(quote(node.key))\n"
            text += "            set -g \(prefix)_subs \(node.subcommands.map { quote($0.name) }.joined(separator: " "))\n"
            text += "            set -g \(prefix)_valued \(node.valued.map { quote($0.token) }.joined(separator: " "))\n"
            text += "            set -g \(prefix)_fallback \(quote(node.fallback ?? ""))\n"
        }
        text += """
                    case '*'
                        return 1
                end
                return 0
            end

            # Walks the words before the cursor: sets \(prefix)_path, \(prefix)_position and \(prefix)_expect
            # (the option whose value is being completed, if any). Every entry's condition asks, so the result
            # is kept for the command line it was computed from.
            function \(prefix)_walk
                set -l line (commandline -cp)
                test "$line" = "$\(prefix)_walked"; and return 0
                set -g \(prefix)_walked "$line"
                set -l words (commandline -opc)
                set -g \(prefix)_path ''
                set -g \(prefix)_position 0
                set -g \(prefix)_expect ''
                set -l ended 0
                \(prefix)_describe ''
                for word in $words[2..-1]
                    if test -n "$\(prefix)_expect"
                        set \(prefix)_expect ''
                        continue
                    end
                    if test $ended = 0; and test "$word" = --
                        set ended 1
                        continue
                    end
                    if test $ended = 0; and string match -q -- '-?*' "$word"
                        if test -n "$\(prefix)_fallback"
                            set \(prefix)_path (string trim -- "$\(prefix)_path $\(prefix)_fallback")
                            \(prefix)_describe "$\(prefix)_path"
                        end
                        if not string match -q -- '*=*' "$word"; and contains -- "$word" $\(prefix)_valued
                            set \(prefix)_expect "$word"
                        end
                        continue
                    end
                    if test $ended = 0; and contains -- "$word" $\(prefix)_subs
                        # The implicit `help` has no entry of its own: `help config` completes like `config`.
                        set -l next (string trim -- "$\(prefix)_path $word")
                        if \(prefix)_describe "$next"
                            set \(prefix)_path "$next"
                            set \(prefix)_position 0
                        else
                            \(prefix)_describe "$\(prefix)_path"
                        end
                        continue
                    end
                    set \(prefix)_position (math $\(prefix)_position + 1)
                end
            end

            # Whether the cursor is below command $argv[1] (where its options apply).
            function \(prefix)_in
                \(prefix)_walk
                test "$\(prefix)_path" = "$argv[1]"
            end

            # Whether the cursor is at command $argv[1], not at an option's value, and (given $argv[2]) at that
            # positional argument.
            function \(prefix)_at
                \(prefix)_walk
                test "$\(prefix)_path" = "$argv[1]"; and test -z "$\(prefix)_expect"
                and begin; test (count $argv) -lt 2; or test "$\(prefix)_position" = "$argv[2]"; end
            end

            complete -c \(program) -f

            """
        for node in nodes {
            let key = quote(node.key)
            for subcommand in node.subcommands {
                text += "complete -c \(program) -n \(quote("\(prefix)_at \(key)")) -a \(quote(subcommand.name)) -d \(quote(subcommand.abstract))\n"
            }
            for option in node.options {
                let name = String(option.token.dropFirst(2))
                var entry = "complete -c \(program) -n \(quote("\(prefix)_in \(key)"))"
                if let short = option.short { entry += " -s \(quote(String(short)))" }
                entry += " -l \(quote(name))"
                if let valued = node.valued.first(where: { $0.token == option.token }) {
                    switch valued.completion {
                    case .none: entry += " -x"
                    case .file: entry += " -r -F"
                    case .directory: entry += " -x -a '(__fish_complete_directories)'"
                    case .choices(let words): entry += " -x -a \(quote(words.joined(separator: " ")))"
                    }
                }
                text += entry + " -d \(quote(option.help))\n"
            }
            for (index, completion) in node.arguments.enumerated() {
                let condition = quote("\(prefix)_at \(key) \(index)")
                switch completion {
                case .none: continue
                case .file: text += "complete -c \(program) -n \(condition) -F\n"
                case .directory: text += "complete -c \(program) -n \(condition) -a '(__fish_complete_directories)'\n"
                case .choices(let words): text += "complete -c \(program) -n \(condition) -a \(quote(words.joined(separator: " ")))\n"
                }
            }
        }
        return text
    }
}
