import ExpenseCore
import SQLite

extension SQLiteExpenseStore {
    /// One indexed-free aggregate in SQL (no rows decoded): SQLite's integer `sum` reports an overflow as an
    /// error, which becomes `nil`.
    package func liveTotal(currency: Currency) throws -> Int64? {
        do {
            return try connection.cached("SELECT coalesce(sum(amount), 0) FROM expense WHERE deleted = 0 AND currency = ?1")
                .first([.text(currency.code)]) { $0.int64(0) } ?? 0
        } catch let error as SQLiteError where error.isIntegerOverflow {
            return nil
        } catch let error as SQLiteError {
            throw StoreError.unreadable(path: location, reason: error.message)
        }
    }
}
