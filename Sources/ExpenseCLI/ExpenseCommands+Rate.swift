import CommandLineKit

extension ExpenseCommands {
    static let rates = KindCommands(spec: rate, runs: [
        "set": { try $0.rateSet() }, "list": { try $0.rateList() }, "remove": { try $0.rateRemove() },
        "import": { try $0.rateImport() },
    ])

    static let rate = CommandSpec(
        name: "rate", abstract: "Exchange rates: 1 FROM = RATE TO from a day on.",
        discussion: """
          Rates are synced like budgets (Protocol.md section 10.7). A ledger holds at most one rate per day and
          ordered pair: setting it again changes it, and two machines setting one day and pair to different rates
          make a conflict (`expense conflicts`). A rate is a plain decimal of at most 12 significant digits and 15
          decimals, such as 1.0834 or 0.000123; it is kept exactly, never as a binary fraction. To convert FROM
          into TO on a day, the latest FROM TO rate dated on or before that day is used, else the inverse of the
          latest TO FROM one, else the two through the ledger's currency (each found the same way); never a rate
          dated after the day, never a longer chain.
        """,
        subcommands: [
            CommandSpec(name: "set", abstract: "Set the rate of FROM in TO on DATE; prints its id.",
                        arguments: [ExpenseArguments.rateDate.spec, ExpenseArguments.rateFrom.spec, ExpenseArguments.rateTo.spec,
                                    ExpenseArguments.rate.spec]),
            CommandSpec(name: "list", abstract: "List the rates by date, then pair.",
                        options: [ExpenseOptions.from.help("Only rates dated on or after this day.").spec,
                                  ExpenseOptions.to.help("Only rates dated on or before this day.").spec,
                                  ExpenseOptions.json.help("Print a JSON array of {id, date, from, to, rate} (the rate as decimal text).").spec]),
            CommandSpec(name: "remove", abstract: "Remove the rate of FROM in TO on DATE.",
                        arguments: [ExpenseArguments.rateDate.spec, ExpenseArguments.rateFrom.spec, ExpenseArguments.rateTo.spec]),
            CommandSpec(name: "import", abstract: "Set every rate of a CSV file: all of them, or none if a row is bad.",
                        discussion: """
                          Two layouts are read. Ours: `date,from,to,rate` per line (the header line is optional), such as
                          `2026-12-04,EUR,USD,1.0534`. The European Central Bank's (eurofxref.csv, eurofxref-hist.csv): a
                          header `Date, USD, JPY, …` and a row per day (`04 December 2026` or `2026-12-04`), each cell
                          the rate of 1 EUR in its column's currency; empty and N/A cells are skipped, and so is a column
                          whose currency this program does not know (a warning names it). Prints `N set, M already set`.
                        """,
                        arguments: [ExpenseArguments.rateFile.spec]),
        ])
}

extension ExpenseArguments {
    /// `rate set|remove DATE FROM TO`: the day the rate holds from.
    static let rateDate = Argument("date", help: "The day the rate holds from, YYYY-MM-DD.")
    /// `rate set|remove DATE FROM TO`: the currency of which one unit is priced.
    static let rateFrom = Argument("from", help: "The currency of which 1 unit is RATE TO, such as EUR.")
    /// `rate set|remove DATE FROM TO`: the currency the rate counts in.
    static let rateTo = Argument("to", help: "The currency RATE counts in, such as USD.")
    /// `rate set DATE FROM TO RATE`.
    static let rate = Argument("rate", help: "How many TO one FROM is worth, a plain decimal such as 1.0834.")
    /// `rate import FILE`.
    static let rateFile = Argument("file", help: "The CSV file, or - for standard input.")
}
