import CommandLineKit

extension ExpenseCommands {
    static let budgets = KindCommands(spec: budget, runs: [
        "set": { try $0.budgetSet() }, "list": { try $0.budgetList() }, "remove": { try $0.budgetRemove() },
        "status": { try $0.budgetStatus() },
    ])

    static let budget = CommandSpec(
        name: "budget", abstract: "Set budgets per category or tag and see what is left of them.",
        discussion: """
          A budget is one per (category, currency), or with --tag TAG one per (tag, currency): a tag budget counts
          every expense carrying the tag with its whole amount (a tag is on the payment, not on a part), and shows
          as tag:TAG. A budget is synced like expenses (Protocol.md section 10): setting
          the same budget on two machines gives one budget, two different amounts a conflict. Periods are anchored
          at --start: `--period month --start 2026-01-25` budgets from the 25th to the 24th; a start on the 29th to
          31st is clamped to shorter months' last day. Changing the amount applies from the period containing
          --from onwards; earlier periods keep theirs. Rollover: none carries nothing, positive carries what was
          left, full also carries an overspend, chained from the first period. Currencies are never mixed.
        """,
        subcommands: [
            CommandSpec(name: "set", abstract: "Create a budget or change it; prints its id.",
                        discussion: "Give CATEGORY AMOUNT, or --tag TAG AMOUNT for a tag's budget.",
                        // Both optional for the parser: with --tag the one word given is the amount (budgetSet checks).
                        arguments: [ExpenseArguments.category.help("The category, such as food (not with --tag).").asOptional().spec,
                                    ExpenseArguments.amount.help("The amount per period, such as 500.00.").asOptional().spec],
                        options: [ExpenseOptions.budgetTag.spec,
                                  ExpenseFieldOptions.currency.help("An ISO 4217 code (default: the configured currency).").spec,
                                  ExpenseOptions.budgetPeriod.spec,
                                  ExpenseOptions.start.help("The first day of the first period (default: the 1st of this month).").spec,
                                  ExpenseOptions.rollover.spec,
                                  ExpenseOptions.from.help("When changing: the new amount applies from the period containing this day (default: today).").spec]),
            CommandSpec(name: "list", abstract: "List the budgets.",
                        options: [ExpenseOptions.json.help("Print a JSON array (amounts as integers in minor units).").spec]),
            CommandSpec(name: "remove", abstract: "Remove a budget.",
                        arguments: [ExpenseArguments.category.help("The budget's category (not with --tag).").asOptional().spec],
                        options: [ExpenseOptions.budgetTag.help("The budget's tag, instead of a category.").spec,
                                  ExpenseFieldOptions.currency.help("The budget's currency (default: the configured currency).").spec]),
            CommandSpec(name: "status", abstract: "Budgeted, carried, spent and left for the period containing a day.",
                        discussion: """
                          In a terminal each budget gets a bar of what was spent; over-budget ones are marked OVER.
                          A budget counts only the expenses of its own currency, unless --in CODE is given: then
                          every budget counts every expense of its category (or tag), whatever its currency, each converted
                          into CODE with the ledger's rates (as `summary --in`), against its limit (and what it
                          carries) converted on its period's end, or on --at DATE. --at end values the expenses on
                          the end of the budget's period containing --on too. An expense with no rate is left out
                          and listed after the budgets, and a budget whose limit has no rate is not shown but named;
                          standard error says how many of each.
                        """,
                        options: [ExpenseOptions.on.help("The day (default: today).").spec,
                                  ExpenseOptions.member.spec,
                                  ExpenseOptions.inCurrency.spec,
                                  ExpenseOptions.valuation.spec,
                                  ExpenseOptions.json.help("Print a JSON array (amounts as integers in minor units); with --in, an object {in, at, budgets: that array, unconverted, unconvertedBudgets}.").spec]),
        ])
}
