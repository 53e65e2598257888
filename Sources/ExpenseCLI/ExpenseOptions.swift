import CommandLineKit
import ExpenseClient
import ExpenseCore

/// The enumerated options of `expense`, each declared once with its words (parsed by ``TypedOption/choice(_:value:help:required:_:)``,
/// so every one refuses another word the same way). The field options are ``ExpenseFieldOptions``.
enum ExpenseOptions {
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
    /// `budget set --rollover`.
    static let rollover = TypedOption<BudgetRollover>.choice("rollover", help: "What a period's left does to the next (default: none).")
    /// `export --format`.
    static let exportFormat = TypedOption<ImportOptions.Format>.choice(
        "format", help: "The format (default: csv).", [("csv", .csv), ("json", .json)])
    /// `import --format`.
    static let importFormat = exportFormat.help("The file's format (default: JSON if it starts with [, else CSV).")

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
