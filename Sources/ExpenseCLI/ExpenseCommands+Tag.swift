import CommandLineKit

extension ExpenseCommands {
    static let tagCommands = KindCommands(spec: tag, runs: ["list": { try $0.tagList() }])

    static let tag = CommandSpec(
        name: "tag", abstract: "The tags of expenses (`expense add … --tag T`), with their counts and totals.",
        discussion: """
          A tag is 1 to 32 characters with no whitespace, comma or control character; an expense has at most 16,
          compared byte for byte. `expense add 12.50 food --tag trip-2026 --tag work` tags an expense; `edit
          --tag …` replaces its tags, `edit --no-tags` removes them; list, summary, stats and report take --tag
          (repeat it: expenses with every tag given). Tags edited on two machines at once merge as a set.
        """,
        subcommands: [
            CommandSpec(name: "list", abstract: "Every tag in use, with its count and totals per currency.",
                        options: [ExpenseOptions.json.help("Print a JSON array of {tag, count, totals: [{currency, amount, count}]}.").spec]),
        ])
}
