import CommandLineKit

extension ExpensedCommands {
    static let migrate = CommandSpec(
        name: "migrate", abstract: "Copy ledgers between a SQLite data directory and a PostgreSQL database, identity and all.",
        discussion: """
          Either --from-sqlite DIR --to-postgres CONNINFO or --from-postgres CONNINFO --to-sqlite DIR. Copies
          each ledger whole: its id and epoch, every record and tombstone at its own seq, budgets, rules and
          settings, history, each client's last consumed mutation and kept outcomes, tokens (their hashes,
          roles, names and times) and the purge horizon; then reads the copy back and compares it with the
          source, and the totals with the sum of the live records. Clients synced with the source sync with the
          target without pulling again (`pulled 0`). The source is left as it was. Refused when the target has
          a ledger of that name (nothing is copied), and when a daemon serves the SQLite source directory (stop
          it first). A PostgreSQL source is read in one consistent snapshot, also while daemons serve it, but
          what they accept afterwards is not copied: stop them before moving a ledger. Prints one line per
          ledger: `migrated NAME: N records, head H, S s`.
        """,
        options: [ExpensedOptions.fromSQLite.spec,
                  ExpensedOptions.toPostgres.spec,
                  ExpensedOptions.fromPostgres.spec,
                  ExpensedOptions.toSQLite.spec,
                  ExpensedOptions.ledgers.spec])
}
