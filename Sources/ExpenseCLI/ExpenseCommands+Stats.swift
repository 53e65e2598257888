import CommandLineKit

extension ExpenseCommands {
    static let stats = CommandSpec(
        name: "stats", abstract: "Totals per week, month, quarter or year, with the average per period.",
        discussion: """
          One table per currency (currencies are never added together): one row per period (weeks are ISO 8601,
          Monday to Sunday, named 2026-W05; quarters are calendar quarters, 2026-Q1), with --by category one
          column per category, the total and count of each row, and at the bottom the total and the average per
          period of each column. Periods without expenses are shown as 0 and count in the average. A period
          marked * is partial: the current one (so far), or cut by --from/--to. Without --from and --to: the
          current period and the 11 before it. At most 1000 periods. In a terminal a trend line draws one bar per
          period. --json gives the same numbers in minor units; --csv plain decimals. --in CODE converts every
          amount into CODE with the ledger's rates (as `summary --in`), so there is one table: --at then values
          each at its own date, --at end at the last day of its row's period (the whole week, month, quarter or
          year), --at DATE at that day. --currency then keeps the expenses in that currency before converting
          them. An amount with no rate is not converted: it is listed after the table (left out of --csv), and
          standard error says how many. With --server the daemon converts its own records with its rates.
        """,
        options: [ExpenseOptions.statisticsPeriod.spec,
                  ExpenseOptions.from.help("The first day counted (default: the start of the 12th period back).").spec,
                  ExpenseOptions.to.help("The last day counted (default: the end of the current period).").spec,
                  ExpenseOptions.statisticsGrouping.spec,
                  ExpenseFieldOptions.currency.help("Only this currency's table.").spec,
                  ExpenseOptions.tagFilter.help("Only expenses with this tag (repeat: with every one; not with --server).").spec,
                  ExpenseOptions.member.spec,
                  ExpenseOptions.inCurrency.spec,
                  ExpenseOptions.valuation.spec,
                  ExpenseOptions.server.help("Ask the daemon for its figures (the authority) instead of the local copy.").spec,
                  ExpenseOptions.json.help("Print JSON (amounts as integers in minor units; with --in, in, at and unconverted).").spec,
                  ExpenseOptions.csv.spec])

    static let report = CommandSpec(
        name: "report", abstract: "Write a self-contained HTML report with charts.",
        discussion: """
          One HTML file with inline CSS and SVG (no script, no network: it opens from a USB stick in any
          browser), per currency: spending by category with shares, a monthly trend, budget against actual
          (where budgets exist), the largest expenses, and under each chart a table of its numbers. Light or dark as the reader's system prefers; printable.
          The numbers are those of `expense summary --by category` and `expense stats --period month`. Without
          --from and --to: the last 12 months. The file is replaced atomically and created with mode 0600.
          --in CODE makes one report in CODE (as `summary --in`): every total, month, largest expense, budget
          (as `budget status --in`) and balance converted with the ledger's rates; --at end values the amounts
          on the range's end (--to, or today). What has no rate is listed in a last section, "Not converted",
          and standard error says how many amounts were left out.
        """,
        options: [ExpenseOptions.output.help("The HTML file to write.").asRequired().spec,
                  ExpenseOptions.from.help("The first day covered (default: the 1st of the 12th month back).").spec,
                  ExpenseOptions.to.help("The last day covered (default: the end of this month).").spec,
                  ExpenseFieldOptions.currency.help("Only this currency (with --in: only expenses in it, converted).").spec,
                  ExpenseOptions.tagFilter.help("Only expenses with this tag (repeat: with every one; budgets stay whole).").spec,
                  ExpenseOptions.member.spec,
                  ExpenseOptions.inCurrency.spec,
                  ExpenseOptions.valuation.spec])
}
