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
        """,
        options: [ExpenseFieldOptions.currency.help("Only this currency.").spec, ExpenseOptions.server.spec,
                  ExpenseOptions.json.help("Print a JSON array of {member, name, currency, paid, share, net} (minor units).").spec])
}
