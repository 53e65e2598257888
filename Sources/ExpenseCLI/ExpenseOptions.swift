import CommandLineKit
import ExpenseClient
import ExpenseCore

/// Every option and flag of `expense` but the field options (``ExpenseFieldOptions``), each declared once with its
/// type: the specs in ``ExpenseCommands`` are built from these and the run functions read them (`command[json]`,
/// `try command.value(from)`), never a name. Enumerated options parse through ``TypedOption/choice(_:value:help:required:_:)``,
/// so every one refuses another word the same way. A command gives a shared one its own help with `.help(…)`.
enum ExpenseOptions {
    // Flags.

    /// `--json` of every command that prints JSON.
    static let json = Flag("json", help: "Print JSON.")
    /// `summary`, `stats`, `budget status`, `report --member NAME`: one member's part of the spending.
    static let member = TypedOption<String>.text(
        "member", value: "name",
        help: "Count only this member's part: their share of shared expenses, and what they paid that nobody shares.")
    /// `summary --in` and the other converted views: every amount in this currency, with the ledger's rates.
    static let inCurrency = TypedOption<Currency>(
        "in", value: "code",
        help: "Convert every amount into this currency with the ledger's rates (expense rate); amounts with no rate are listed apart, never converted at 1."
    ) { try ExpenseValidator.validateCurrency($0) }
    /// `--at` of a converted view: the day each amount is valued on.
    static let valuation = TypedOption<Valuation>(
        "at", value: "when",
        help: "With --in: value each amount at then (its own date, the default), end (the end of its period) or a YYYY-MM-DD."
    ) { text in
        guard let valuation = Valuation(text) else {
            throw OptionValueError("--at must be then, end or a date YYYY-MM-DD, not \(DisplayText.quoted(text))")
        }
        return valuation
    }
    /// `summary --server`, `stats --server`: ask the daemon.
    static let server = Flag("server", help: "Ask the daemon (the authority) instead of the local copy.")
    /// `stats --csv`.
    static let csv = Flag("csv", help: "Print CSV (amounts as plain decimals).")
    /// `import --dry-run`.
    static let dryRun = Flag("dry-run", help: "Check the file and print what would be imported, without storing anything.")
    /// `import --decimal-comma`.
    static let decimalComma = Flag("decimal-comma", help: "Amounts are written 1.234,56 (comma as the decimal mark).")
    /// `remote set --trust-first`.
    static let trustFirst = Flag("trust-first", help: "Pin the certificate of the first successful connection.")
    /// `remote set --insecure-plaintext`.
    static let insecurePlaintext = Flag("insecure-plaintext", help: "Allow plaintext HOST:PORT to an address that is not loopback.")
    /// `sync --watch`.
    static let watch = Flag("watch", help: "Stay connected and pull other clients' changes as they land (Ctrl-C or SIGTERM stops it, exit 0).")
    /// `resolve --mine`.
    static let mine = Flag("mine", help: "Keep my change (re-submitted against the server's current version; restores a deleted expense).")
    /// `resolve --theirs`.
    static let theirs = Flag("theirs", help: "Drop my change and take the server's (also for a change the daemon rejected).")
    /// `resolve --edit`.
    static let edit = Flag("edit", help: "Start from the server's version and set the fields given below.")
    /// `resolve --mine | --theirs | --edit`: exactly one is given (the spec's exclusive group).
    enum ResolveSide: String, CaseIterable {
        case mine, theirs, edit

        /// The side's flag.
        var flag: Flag {
            switch self {
            case .mine: ExpenseOptions.mine
            case .theirs: ExpenseOptions.theirs
            case .edit: ExpenseOptions.edit
            }
        }
    }

    /// `discard --rejected`.
    static let rejected = Flag("rejected", help: "Drop every change the daemon rejected (see `expense status`).")
    /// `undo --last`.
    static let last = Flag("last", help: "Revert this machine's last local command instead (give no id).")

    // Free text and paths.

    /// `list --category`, `summary --category`: a filter (the field of `add`/`edit` is ``ExpenseFieldOptions/category``).
    static let categoryFilter = TypedOption<String>.text("category", value: "category", help: "Only expenses of this category.")
    /// `list|summary|stats|report --tag`: a filter, repeatable; an expense must have every tag given (the field of
    /// `add`/`edit` is ``ExpenseFieldOptions/tag``).
    static let tagFilter = TypedOption<String>.text("tag", value: "tag", help: "Only expenses with this tag (repeat: with every one).")
    /// `export --output`, `report --output` (required there).
    static let output = TypedOption<String>.text("output", value: "file", help: "Write to this file (mode 0600) instead of standard output.")
    /// `export --expenses-account` (hledger, beancount; checked against the format where it is used).
    static let expensesAccount = TypedOption<String>.text(
        "expenses-account", value: "root",
        help: "hledger and beancount: the account holding one account per category (default: Expenses).")
    /// `export --assets-account` (hledger, beancount; checked against the format where it is used).
    static let assetsAccount = TypedOption<String>.text(
        "assets-account", value: "name",
        help: "hledger and beancount: the account expenses are paid from, each payer's cash below it (default: Assets:Cash).")
    /// `import --map`.
    static let map = TypedOption<String>.text(
        "map", value: "field=Header,…",
        help: "Read a bank's CSV: the column of each field (date, amount and category required; currency, note, id optional).")
    /// `import --delimiter`.
    static let delimiter = TypedOption<String>.text("delimiter", value: "char", help: "The CSV field separator, such as ';' or tab (default: ,).")
    /// `import --date-format`.
    static let dateFormat = TypedOption<String>.text(
        "date-format", value: "format",
        help: "How dates are written, with YYYY, MM and DD, such as DD.MM.YYYY (default: YYYY-MM-DD).")
    /// `remote set --ledger`.
    static let ledger = TypedOption<String>.text("ledger", value: "name", help: "The ledger's name on the daemon.", required: true)
    /// `remote set --ca`.
    static let certificateAuthority = TypedOption<String>.text(
        "ca", value: "file", help: "Trust the CA certificates in this PEM file instead of the system's.")
    /// `remote set --pin` (checked where it is used: its message names `expensed tls init`).
    static let pin = TypedOption<String>.text("pin", value: "sha256:hex", help: "Accept only the certificate with this SHA-256 fingerprint.")
    /// `remote set --token-file`.
    static let tokenFile = TypedOption<String>.text("token-file", value: "file", help: "Read the ledger's token from this file.")
    /// `remote set --token`.
    static let token = TypedOption<String>.text(
        "token", value: "token", help: "The ledger's token (prefer --token-file: a command line is visible to others).")
    /// `log --by`.
    static let byToken = TypedOption<String>.text(
        "by", value: "name", help: "Only changes made with this token name (exact; `expensed token add NAME`).")
    /// `recurring add --every` (parsed where it is used, with the units).
    static let every = TypedOption<String>.text(
        "every", value: "N unit", help: "The interval: a unit (day, week, month, year) or N and a unit, such as '2 weeks'.",
        required: true)
    /// `recurring add --count`.
    static let count = TypedOption<Int>("count", value: "N", help: "How many occurrences there are (1 to 100000).") { text in
        guard let count = Int(text) else { throw OptionValueError("--count must be a whole number, not '\(text)'") }
        return count
    }
    /// `recurring add --month-end`.
    static let monthEnd = TypedOption<MonthEndPolicy>.choice(
        "month-end", help: "In a month without the day: its last day (clamp, the default) or none (skip).",
        [("clamp", .clamp), ("skip", .skip)])

    // Enumerated options.

    /// `summary --by`.
    static let summaryGrouping = TypedOption<SummaryGrouping>.choice(
        "by", help: "Group the totals by category or by month (YYYY-MM).", [("category", .category), ("month", .month)])
    /// `stats --by`: one word, so it is a switch with a value.
    static let statisticsGrouping = TypedOption<Bool>.choice("by", help: "One column per category.", [("category", true)])
    /// `stats --period`.
    static let statisticsPeriod = TypedOption<StatisticsPeriod>.choice("period", help: "The length of a row (default: month).")
    /// `budget set --period`.
    static let budgetPeriod = TypedOption<BudgetPeriodLength>.choice(
        "period", help: "The period (default: month; unchanged when changing).")
    /// `budget set|remove --tag`: a budget of the expenses carrying this tag, instead of a category's (checked by
    /// the expense's own rule when the budget is stored: exit 65, `invalid_tags`).
    static let budgetTag = TypedOption<String>.text(
        "tag", value: "tag", help: "A budget for the expenses with this tag (whole amounts), instead of a category.")
    /// `budget set --rollover`.
    static let rollover = TypedOption<BudgetRollover>.choice("rollover", help: "What a period's left does to the next (default: none).")
    /// What `export --format` writes.
    enum ExportFormat: Sendable, Equatable {
        case csv, json
        /// A plain-text accounting journal (``JournalExport``).
        case journal(JournalFormat)
    }

    /// `export --format`.
    static let exportFormat = TypedOption<ExportFormat>.choice(
        "format", help: "The format (default: csv); hledger is read by Ledger too.",
        [("csv", .csv), ("json", .json), ("hledger", .journal(.hledger)), ("beancount", .journal(.beancount))])
    /// `import --format`: the export's formats, or Splitwise's CSV export.
    static let importFormat = TypedOption<ImportOptions.Format>.choice(
        "format", help: "The file's format (default: JSON if it starts with [, else CSV); splitwise: Splitwise's CSV export.",
        [("csv", .csv), ("json", .json), ("splitwise", .splitwise)])

    // The days (YYYY-MM-DD, validated by the core: exit 65 naming the date). Each command gives its own help.

    static let from = day("from", help: "Only expenses on or after this day.")
    static let to = day("to", help: "Only expenses on or before this day.")
    static let on = day("on", help: "The day (default: today).")
    static let start = day("start", help: "The first day.")
    static let until = day("until", help: "The last day.")
    static let since = day("since", help: "Only changes made on or after this day.")

    /// An option whose value is a day, `--name <date>`.
    static func day(_ name: String, help: String) -> TypedOption<CalendarDay> {
        TypedOption(name, value: "date", help: help) { try ExpenseValidator.validateDate($0) }
    }
}
