import CommandLineKit

extension ExpenseCommands {
    static let transfers = KindCommands(spec: settle, runs: [
        "show": { try $0.settleShow() }, "record": { try $0.settleRecord() }, "list": { try $0.settleList() },
        "remove": { try $0.settleRemove() },
    ])

    static let settle = CommandSpec(
        name: "settle", abstract: "Settle up: the transfers that would, and the ones members made.",
        discussion: """
          `expense settle` lists, per currency, transfers that bring every balance to zero: greedy, the member who
          owes most pays the member owed most as much as settles one of them, again until every balance is zero
          (ties by member id). At most members - 1 transfers per currency, in that order: paying the first one and
          asking again leaves the others as they were. `settle record FROM TO AMOUNT` records that FROM paid TO
          back: synced like budgets, it moves balances and is never spending (no summary, statistic, budget or
          report counts it). `settle list` shows the recorded ones, `settle remove ID` takes one back.
        """,
        subcommands: [
            CommandSpec(name: "show", abstract: "The transfers that would settle everyone up (the default).",
                        discussion: """
                          --in CODE settles the converted balances of `balances --in` (every shared expense and
                          transfer converted once into CODE, nets adding up to zero): one currency to pay in. What
                          has no rate is left out and listed after the transfers; standard error says how many.
                        """,
                        options: [ExpenseFieldOptions.currency.help("Only this currency (with --in: only records in it, converted).").spec,
                                  ExpenseOptions.inCurrency.spec, ExpenseOptions.valuation.spec,
                                  ExpenseOptions.json.help("Print a JSON array of {from, to, fromId, toId, amount, currency} (names, then member ids; minor units); with --in, an object {in, at, transfers: that array, unconverted}.").spec]),
            CommandSpec(name: "record", abstract: "Record that FROM paid TO back; prints its id.",
                        arguments: [ExpenseArguments.payingMember.spec, ExpenseArguments.paidMember.spec,
                                    ExpenseArguments.amount.help("The amount, such as 26.67.").spec],
                        options: [ExpenseFieldOptions.currency.help("An ISO 4217 code (default: the configured currency).").spec,
                                  ExpenseFieldOptions.date.help("The day it was paid, YYYY-MM-DD (default: today).").spec]),
            CommandSpec(name: "list", abstract: "List the recorded transfers by date.",
                        options: [ExpenseOptions.json.help("Print a JSON array of {id, from, to, fromId, toId, amount, currency, date} (names, then member ids; minor units).").spec]),
            CommandSpec(name: "remove", abstract: "Remove a recorded transfer.",
                        arguments: [ExpenseArguments.id.help("The transfer's id or a unique prefix of at least 4 characters.").spec]),
        ],
        defaultSubcommand: "show")
}

extension ExpenseArguments {
    /// `settle record FROM TO AMOUNT`: who paid.
    static let payingMember = Argument("from", help: "The member who paid, by name.")
    /// `settle record FROM TO AMOUNT`: who was paid.
    static let paidMember = Argument("to", help: "The member who was paid back, by name.")
}
