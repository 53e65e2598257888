/// The zsh script: a `#compdef` function for compsys, with subcommands and options described (`_describe`).
///
/// `_tool_complete WORDS…` does the work without compsys (it sets `kind` and `reply`), so it can be tested with
/// `zsh -c`; `_tool` hands its result to `_describe`, `_files` or `compadd`.
struct ZshCompletion {
    let program: String
    let nodes: [CompletionNode]

    var script: String {
        let function = "_" + ShellQuote.identifier(program)
        var text = """
            #compdef \(program)
            # zsh completion for \(program), generated from its command specs (`\(program) completion zsh`).

            # Sets subs and opts (NAME:DESCRIPTION entries), valued (options taking a value) and fallback (the
            # default subcommand) for command $1; fails for a command that has no entry.
            \(function)_describe() {
                case $1 in

            """
        for node in nodes {
            text += "        (\(ShellQuote.single(node.key)))\n"
            text += "            subs=(\(node.subcommands.map { entry($0.name, $0.abstract) }.joined(separator: " ")))\n"
            text += "            opts=(\(node.options.map { entry($0.token, $0.help) }.joined(separator: " ")))\n"
            text += "            valued=(\(node.valued.map { ShellQuote.single($0.token) }.joined(separator: " ")))\n"
            text += "            fallback=\(ShellQuote.single(node.fallback ?? "")) ;;\n"
        }
        text += """
                    (*) subs=(); opts=(); valued=(); fallback=''; return 1 ;;
                esac
            }

            # Sets kind (words, file, directory or nothing) and reply for the value of option $2 (or of positional
            # argument #N) of command $1.
            \(function)_values() {
                kind=nothing; reply=()
                case "$1|$2" in

            """
        for node in nodes {
            let entries = node.valued.map { ($0.token, $0.completion) }
                + node.arguments.enumerated().map { ("#\($0.offset)", $0.element) }
            for (token, completion) in entries {
                let action: String
                switch completion {
                case .none: continue
                case .file: action = "kind=file"
                case .directory: action = "kind=directory"
                case .choices(let words): action = "kind=words; reply=(\(words.map { ShellQuote.single($0) }.joined(separator: " ")))"
                }
                text += "        (\(ShellQuote.single(node.key + "|" + token)))) \(action) ;;\n"
            }
        }
        text += """
                esac
            }

            # Completes the last of the words $@ (the words after the program name, up to the cursor's): sets kind
            # (describe, words, file, directory or nothing) and reply, and equals=1 for the value in `--option=value`.
            \(function)_complete() {
                local cur=${@[-1]} cmdpath='' word expect='' next
                local -i position=0 ended=0
                local -a subs opts valued
                local fallback
                kind=nothing; reply=(); equals=0
                \(function)_describe ''
                for word in "${@[1,-2]}"; do
                    if [[ -n $expect ]]; then expect=''; continue; fi
                    if (( ! ended )) && [[ $word == -- ]]; then ended=1; continue; fi
                    if (( ! ended )) && [[ $word == -?* ]]; then
                        if [[ -n $fallback ]]; then
                            cmdpath=${cmdpath:+$cmdpath }$fallback; \(function)_describe "$cmdpath"
                        fi
                        if [[ $word != *=* ]] && (( ${valued[(Ie)$word]} )); then expect=$word; fi
                        continue
                    fi
                    if (( ! ended )) && (( ${subs[(I)${(b)word}:*]} )); then
                        # The implicit `help` has no entry of its own: `help config` completes like `config`.
                        next=${cmdpath:+$cmdpath }$word
                        if \(function)_describe "$next"; then cmdpath=$next; position=0; else \(function)_describe "$cmdpath"; fi
                        continue
                    fi
                    position+=1
                done
                if [[ -n $expect ]]; then \(function)_values "$cmdpath" "$expect"; return 0; fi
                if (( ! ended )) && [[ $cur == --*=* ]] && (( ${valued[(Ie)${cur%%=*}]} )); then
                    \(function)_values "$cmdpath" "${cur%%=*}"; equals=1; return 0
                fi
                if (( ! ended )) && [[ $cur == -* ]]; then kind=describe; reply=("${opts[@]}"); return 0; fi
                if (( ! ended )) && (( ${#subs} )); then kind=describe; reply=("${subs[@]}"); return 0; fi
                \(function)_values "$cmdpath" "#$position"
            }

            \(function)() {
                local kind equals
                local -a reply
                \(function)_complete "${(@)words[2,CURRENT]}"
                (( equals )) && compset -P '*='
                case $kind in
                    (describe) _describe -t values \(ShellQuote.single(program)) reply ;;
                    (words) compadd -a reply ;;
                    (file) _files ;;
                    (directory) _files -/ ;;
                    (*) return 1 ;;
                esac
            }

            if [[ ${funcstack[1]-} == \(function) ]]; then
                \(function) "$@"
            elif (( ${+functions[compdef]} )); then
                compdef \(function) \(program)
            fi

            """
        return text
    }

    /// `'name:description'` for `_describe`, whose colon separates the two (a colon in the name is escaped).
    private func entry(_ name: String, _ description: String) -> String {
        ShellQuote.single(name.replacingAll(":", with: "\\:") + ":" + description)
    }
}
