import ExpenseCore
import ExpenseProtocol

/// Which live records one consistent read of a ledger returns (``LedgerStore/records(_:)``): a set of its
/// expenses and every live record of some other kinds.
package struct RecordSelection: Hashable, Sendable {
    /// Which live expenses.
    package enum Expenses: Hashable, Sendable {
        /// Those with both a payer and a split (stored as non-empty text): what balances count.
        case shared
        /// Those dated `from` … `to`, both inclusive, an end left out being open: what a converted view counts.
        case dated(from: CalendarDay?, to: CalendarDay?)
    }

    package var expenses: Expenses
    /// The kinds besides expenses whose every live record is read.
    package var kinds: [RecordKind]

    package init(expenses: Expenses, kinds: [RecordKind]) {
        self.expenses = expenses
        self.kinds = kinds
    }

    /// What balances are computed from (Protocol.md §5.11): the shared expenses and the transfers.
    package static let balances = RecordSelection(expenses: .shared, kinds: [.transfer])

    /// What balances converted into one currency need: the shared expenses, the transfers and the rates.
    package static let convertedBalances = RecordSelection(expenses: .shared, kinds: [.transfer, .rate])

    /// What a summary converted into one currency needs: the expenses of its range and the rates.
    package static func converting(from: CalendarDay?, to: CalendarDay?) -> RecordSelection {
        RecordSelection(expenses: .dated(from: from, to: to), kinds: [.rate])
    }

    /// The smallest and the largest ``CalendarDay/ordinal`` a `.dated` selection covers (the stores' `day` column,
    /// a 32-bit integer in PostgreSQL): an open end is the first or the last day there is.
    /// A tuple, not a range: `from` after `to` is allowed and selects nothing.
    package var dayOrdinals: (lowerBound: Int64, upperBound: Int64) {
        let first: Int64 = 0, last: Int64 = 9999_12_31
        guard case .dated(let from, let to) = expenses else { return (first, last) }
        return (from.map { Int64($0.ordinal) } ?? first, to.map { Int64($0.ordinal) } ?? last)
    }

    /// Whether the selection holds `expense` (live): the reference the stores' statements are checked against.
    package func includes(_ expense: Expense) -> Bool {
        guard case .dated = expenses else { return expense.paidBy != nil && expense.split != nil }
        let day = Int64(expense.date.ordinal), bounds = dayOrdinals
        return bounds.lowerBound <= day && day <= bounds.upperBound
    }
}

/// The records of a ``RecordSelection`` as a store reads them in one state of the ledger
/// (``LedgerStore/records(_:)``), and the head they reflect.
package struct SelectedRecords: Sendable {
    /// The selected live expenses, in any order.
    package var expenses: [Expense]
    /// Every live record of the selected kinds, in any order; its fields are read by
    /// ``ExpenseCore/LedgerDataValidator``.
    package var data: [DataRecord]
    /// The ledger's head in the state these records were read from.
    package var head: Int64

    package init(expenses: [Expense], data: [DataRecord], head: Int64) {
        self.expenses = expenses
        self.data = data
        self.head = head
    }

    /// The balances of these records (only those in `currency` when it is given), by the core's one selection
    /// (``ExpenseCore/Balances/init(expenses:transfers:currency:)``). A transfer whose fields do not read as one
    /// (validated when pushed, so only a record changed behind the daemon's back) is left out, as a client leaves
    /// it out of its own balances.
    package func balances(in currency: Currency?) throws(SplitError) -> Balances {
        try Balances(expenses: expenses, transfers: transfers, currency: currency)
    }

    /// The balances of these records as ``balances(in:)`` selects them, every amount converted by `converter`
    /// (``ExpenseCore/Balances/init(expenses:transfers:currency:converting:periodEnd:)``).
    package func balances(in currency: Currency?, converting converter: inout CurrencyConverter,
                          periodEnd: CalendarDay) throws(SplitError) -> Balances {
        try Balances(expenses: expenses, transfers: transfers, currency: currency, converting: &converter, periodEnd: periodEnd)
    }

    /// The transfers among these records (those that read as one).
    private var transfers: [ExpenseCore.Transfer] {
        data.filter { $0.kind == .transfer }.compactMap { try? LedgerDataValidator.transfer(id: $0.id, fields: $0.fields) }
    }

    /// The rates among these records (those that read as one), for a ``ExpenseCore/RateTable``.
    package var rates: [ExchangeRate] {
        data.filter { $0.kind == .rate }.compactMap { try? LedgerDataValidator.rate(id: $0.id, fields: $0.fields) }
    }
}
