import CommandLineKit

extension ExpensedCommands {
    static let compact = CommandSpec(
        name: "compact", abstract: "Purge a ledger's tombstones and remove its history entries older than N days, also while the daemon serves.",
        discussion: """
          Records a purge horizon first. A purged tombstone is no longer pulled from 0 (a client that starts
          from nothing), but a client whose last sync is older still pulls the deletions made since, and the
          deletion is kept: a later change of that expense, from any machine, meets it as a conflict (nothing
          is lost). Live expenses, totals and exactly-once bookkeeping are never
          touched. Runs beside a serving daemon (it opens the ledger's SQLite file in short transactions; the
          daemon waits for each, it does not fail). Prints
          `horizon H, purged T tombstones and removed E history entries`. `expensed serve --compact-after N` does the
          same for every ledger daily. VACUUM is not run: the freed pages are reused by new changes. With
          --postgres it compacts the ledger in that database, each step holding the ledger's row lock (the
          daemons' commits wait for it).
        """,
        options: [data, postgres, ExpensedOptions.ledger.help("The ledger to compact.").spec,
                  ExpensedOptions.keepDays.spec])
}
