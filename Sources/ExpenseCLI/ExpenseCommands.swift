import CommandLineKit

/// The `expense` command tree: the single source of its parsing and of its help text.
enum ExpenseCommands {
    static let version = "0.1.0"

    static let dateHelp = "A day written YYYY-MM-DD."

    static let root = CommandSpec(
        name: "expense",
        abstract: "Record what you spend, offline, from a terminal.",
        discussion: """
          Expenses are kept in $EXPENSE_HOME (default ~/.expense) in cache.sqlite. Amounts are exact decimals
          in the currency's minor unit (12.50 USD, 1250 JPY, 1.250 BHD). A negative number can only be given
          after `--` (and is then refused as invalid).
        """,
        subcommands: [add, list, edit, delete, summary, export, importing, config, remote, sync, status, conflicts, resolve])

    static let add = CommandSpec(
        name: "add", abstract: "Record an expense and print its id.",
        arguments: [ArgumentSpec("amount", help: "The amount, such as 12.50 (at most the currency's decimal places)."),
                    ArgumentSpec("category", help: "The category, such as food (1 to 64 characters).")],
        options: [.option("date", value: "date", help: "The day of the expense, YYYY-MM-DD (default: today)."),
                  .option("note", value: "text", help: "A note (up to 300 characters)."),
                  .option("currency", value: "code", help: "An ISO 4217 code (default: the configured currency, else USD).")])

    static let list = CommandSpec(
        name: "list", abstract: "List expenses by date.",
        options: [.option("from", value: "date", help: "Only expenses on or after this day."),
                  .option("to", value: "date", help: "Only expenses on or before this day."),
                  .option("category", value: "category", help: "Only expenses of this category."),
                  .flag("json", help: "Print a JSON array (amounts as integers in minor units).")])

    static let edit = CommandSpec(
        name: "edit", abstract: "Change fields of an expense.",
        arguments: [ArgumentSpec("id", help: "The expense's id or a unique prefix of at least 4 characters.")],
        options: [.option("amount", value: "amount", help: "The new amount."),
                  .option("category", value: "category", help: "The new category."),
                  .option("date", value: "date", help: "The new day, YYYY-MM-DD."),
                  .option("note", value: "text", help: "The new note (an empty text clears it)."),
                  .option("currency", value: "code", help: "The new currency; needs --amount, since the same digits mean different money.")])

    static let delete = CommandSpec(
        name: "delete", abstract: "Delete an expense.",
        arguments: [ArgumentSpec("id", help: "The expense's id or a unique prefix of at least 4 characters.")])

    static let summary = CommandSpec(
        name: "summary", abstract: "Total expenses per currency, optionally by category or month.",
        discussion: "  In a terminal the groups are drawn as a bar chart, largest first, with each share in percent.",
        options: [.option("by", value: "category|month", help: "Group the totals by category or by month (YYYY-MM)."),
                  .option("from", value: "date", help: "Only expenses on or after this day."),
                  .option("to", value: "date", help: "Only expenses on or before this day."),
                  .option("category", value: "category", help: "Only expenses of this category."),
                  .flag("server", help: "Ask the daemon for its totals (the authority) instead of totalling the local copy."),
                  .flag("json", help: "Print JSON (amounts as integers in minor units).")])

    static let export = CommandSpec(
        name: "export", abstract: "Write every expense as CSV or JSON.",
        options: [.option("format", value: "csv|json", help: "The format (default: csv)."),
                  .option("output", value: "file", help: "Write to this file instead of standard output.")])

    static let importing = CommandSpec(
        name: "import", abstract: "Add the expenses of a CSV file: all of them, or none if any row is invalid.",
        discussion: """
          The file starts with the header `date,amount,currency,category,note`; amounts are decimal text;
          an empty currency means the configured one. Fields follow RFC 4180 quoting. A bad row is reported
          with its line number (the header is line 1).
        """,
        arguments: [ArgumentSpec("file", help: "The CSV file, or - for standard input.")],
        options: [.flag("dry-run", help: "Check the file and say what would be imported, without storing anything.")])

    static let config = CommandSpec(
        name: "config", abstract: "Show or change settings.",
        subcommands: [
            CommandSpec(name: "set", abstract: "Change a setting (currency).",
                        arguments: [ArgumentSpec("key", help: "The setting: currency."),
                                    ArgumentSpec("value", help: "The new value, such as EUR.")]),
            CommandSpec(name: "get", abstract: "Print one setting, or every setting as `key value` lines.",
                        arguments: [ArgumentSpec("key", help: "The setting: currency.", optional: true)]),
        ])

    static let remote = CommandSpec(
        name: "remote", abstract: "Show or set the daemon this copy syncs with.",
        subcommands: [
            CommandSpec(name: "set", abstract: "Set the daemon, the ledger and its token (stored in $EXPENSE_HOME, token mode 0600).",
                        arguments: [ArgumentSpec("server", help: "The daemon's HOST:PORT.")],
                        options: [.option("ledger", value: "name", help: "The ledger's name on the daemon (required)."),
                                  .option("token-file", value: "file", help: "Read the ledger's token from this file."),
                                  .option("token", value: "token", help: "The ledger's token (prefer --token-file: a command line is visible to others).")]),
            CommandSpec(name: "show", abstract: "Print the server and ledger (never the token)."),
        ])

    static let sync = CommandSpec(
        name: "sync", abstract: "Push local changes to the daemon and pull everyone else's.",
        discussion: """
          Says hello, pushes the pending changes in batches, pulls every change since the last sync and prints
          `pushed N, pulled M, conflicts K` (or `up to date`). Safe to interrupt and to run again.
          Exit 0: in sync, no open conflict; 3: conflicts remain (see `expense conflicts`); 65: the daemon
          rejected a change (see `expense status`); 69: the daemon is unreachable, or is slowing down
          logins from this address after failed attempts (`throttled`: try again in N s; nothing is lost);
          77: wrong ledger or token.
        """,
        options: [.flag("json", help: "Print the result as JSON."),
                  .flag("watch", help: "Stay connected and pull other clients' changes as they land (Ctrl-C or SIGTERM stops it, exit 0).")])

    static let status = CommandSpec(
        name: "status", abstract: "Show the remote, the last sync, pending changes and open conflicts.",
        options: [.flag("json", help: "Print JSON.")])

    static let conflicts = CommandSpec(
        name: "conflicts", abstract: "List open conflicts, mine and theirs field by field.",
        options: [.flag("json", help: "Print JSON.")])

    static let resolve = CommandSpec(
        name: "resolve", abstract: "Settle a conflict; the next sync sends the result.",
        arguments: [ArgumentSpec("id", help: "The expense's id or a unique prefix of at least 4 characters.")],
        options: [.flag("mine", help: "Keep my change (re-submitted against the server's current version; restores a deleted expense)."),
                  .flag("theirs", help: "Drop my change and take the server's."),
                  .flag("edit", help: "Start from the server's version and set the fields given below."),
                  .option("amount", value: "amount", help: "With --edit: the amount."),
                  .option("category", value: "category", help: "With --edit: the category."),
                  .option("date", value: "date", help: "With --edit: the day, YYYY-MM-DD."),
                  .option("note", value: "text", help: "With --edit: the note."),
                  .option("currency", value: "code", help: "With --edit: the currency (needs --amount).")])

    /// Exit codes and environment, appended to every help text.
    static let footer = """
        EXIT CODES:
        \(ExitCode.documentation)

        ENVIRONMENT:
          EXPENSE_HOME    the directory of the local cache (default: ~/.expense)
          EXPENSE_SERVER  the daemon's HOST:PORT (overrides `expense remote set`)
          EXPENSE_LEDGER  the ledger's name on the daemon
          EXPENSE_TOKEN   the ledger's token
          EXPENSE_CHART   `always` draws summary charts even when standard output is not a terminal
                          (default `auto`: only in a terminal)
          EXPENSE_STORE   `sqlite` (default: cache.sqlite) or `json` (cache.json, the whole-file store)
          EXPENSE_SYNC_ATTEMPTS  connection attempts before `sync` gives up with exit 69 (1-100, default 4)
          EXPENSE_WATCH_PING     seconds of quiet before `sync --watch` pings the daemon (default 15)
          EXPENSE_VERBOSE  set: `sync` prints its steps and timings on standard error
        """
}
