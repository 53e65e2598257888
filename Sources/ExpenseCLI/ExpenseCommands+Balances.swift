import CommandLineKit

extension ExpenseCommands {
    static let balances = CommandSpec(
        name: "balances", abstract: "Who is owed and who owes, per member and currency, from the shared expenses.",
        discussion: """
          For each member and currency: what they paid for shared expenses (those with a --split), their share of
          them, and the difference (positive: they are owed). Currencies are never converted; the members' differences
          in one currency add up to zero. Shares are exact: each member gets the floor of their exact
          share and the remaining minor units go one each by largest remainder, ties broken by member id starting at
          a place the expense's id gives (so the extra cent moves between expenses, the same on every machine).
          With --server the daemon computes them from its own records with the same function; after a sync both
          agree (names come from this copy's members, ids for members it has not pulled yet).
          --in CODE converts with the ledger's rates (as `summary --in`): each shared expense's whole amount once,
          then divided among its members by its own split (an exact split in proportion to its amounts, by the
          same largest-remainder rule), and each transfer once, so the converted nets still add up to zero. --at
          end values them all on today. A shared expense or transfer with no rate is left out of the converted
          balances entirely and listed after them; standard error says how many. --currency then keeps the
          records in that currency before converting them. With --server the daemon converts its own records
          with its rates, on this copy's today for --at end.
        """,
        options: [ExpenseFieldOptions.currency.help("Only this currency (with --in: only records in it, converted).").spec,
                  ExpenseOptions.inCurrency.spec, ExpenseOptions.valuation.spec, ExpenseOptions.server.spec,
                  ExpenseOptions.json.help("Print a JSON array of {member, name, currency, paid, share, net} (minor units); with --in, an object {in, at, balances: that array, unconverted}.").spec])
}
