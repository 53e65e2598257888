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
        subcommands: [add, list, edit, delete, summary, export, importing, config])

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

    /// Exit codes and environment, appended to every help text.
    static let footer = """
        EXIT CODES:
        \(ExitCode.documentation)

        ENVIRONMENT:
          EXPENSE_HOME  the directory of the local cache (default: ~/.expense)
        """
}
