import ExpenseCore

/// What a PostgreSQL transaction adds to one row of `daily_totals` or `monthly_totals` (``PostgresLedgerStore``),
/// the row named by an ``ExpenseCore/TotalsKey``: the category by its bytes, as the table's key compares it, so
/// "café" in NFC and in NFD keep one delta each and each spelling's totals follow its records.
struct TotalsDelta {
    var amount: Int64 = 0
    var count: Int64 = 0
}
