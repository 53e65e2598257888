import ExpenseCore
import Foundation

/// The plain-text accounting journal `expense export --format hledger|beancount` writes: every live expense and
/// recorded transfer as a balanced transaction, built once here and written by each format's own file
/// (`JournalExport+Hledger.swift`, `JournalExport+Beancount.swift`), which only escape and lay out.
///
/// The postings (docs/usage.md, "Journal export"), in minor units of the record's one currency:
/// - an expense nobody shares: `Expenses:CATEGORY +amount` and the assets account `-amount`, or the payer's
///   `ASSETS:PAYER -amount` when it names who paid;
/// - a shared expense (a payer and a split, what ``ExpenseCore/BalanceEntry/init(sharedExpense:)`` counts):
///   `Expenses:CATEGORY +amount`, `ASSETS:PAYER -amount`, `Assets:Balances:PAYER +(amount - payer's share)` and
///   `Assets:Balances:MEMBER -share` for every other member with a share above 0;
/// - a transfer from `FROM` to `TO`: `ASSETS:FROM -amount`, `ASSETS:TO +amount`, `Assets:Balances:FROM +amount`,
///   `Assets:Balances:TO -amount`.
/// So each member's `Assets:Balances` is their net in `expense balances`, and `Expenses` totals `expense summary`
/// per currency (a transfer posts nothing there).
///
/// An expense with an amount charged in the ledger's currency (``ExpenseCore/Expense/charged``, `--paid`) keeps
/// its `Expenses` posting in its own currency with that amount as its total price (`120.00 CHF @@ 128.40 EUR`),
/// and the cash or assets posting that paid it is the amount charged (`-128.40 EUR`): what left the account. Its
/// `Assets:Balances` postings stay in its own currency, as `expense balances` counts them. At cost (hledger and
/// Ledger `-B`, Beancount's weights) the `Expenses` totals in the ledger's currency are then what
/// `expense summary --in` counts for those expenses.
///
/// - Important: every transaction's postings add up to exactly zero (``init(expenses:transfers:prices:names:)``
///   checks it), and ``transactions`` are sorted by date, then by id, so the same records always give the same text.
package struct JournalExport: Sendable {
    /// Where a posting goes, before a format names it (``JournalAccountNames``).
    package enum Account: Hashable, Sendable {
        /// The expenses root's account of one category (compared by its bytes, ``ExpenseCore/ExactText``).
        case expenses(category: String)
        /// The assets account (`--assets-account`) of an expense that names no payer.
        case assets
        /// A member's own cash: the assets account's sub-account named after them.
        case cash(member: UUID)
        /// What a member is owed (above zero) or owes (below zero): `Assets:Balances:MEMBER`.
        case balances(member: UUID)

        package static func == (lhs: Account, rhs: Account) -> Bool {
            switch (lhs, rhs) {
            case let (.expenses(a), .expenses(b)): ExactText.same(a, b)
            case (.assets, .assets): true
            case let (.cash(a), .cash(b)), let (.balances(a), .balances(b)): a == b
            default: false
            }
        }

        package func hash(into hasher: inout Hasher) {
            switch self {
            case .expenses(let category):
                hasher.combine(0)
                ExactText.hash(category, into: &hasher)
            case .assets: hasher.combine(1)
            case .cash(let member): hasher.combine(2); hasher.combine(member)
            case .balances(let member): hasher.combine(3); hasher.combine(member)
            }
        }
    }

    /// One line of a transaction: an amount in minor units of its currency, positive or negative, never 0.
    package struct Posting: Hashable, Sendable {
        package let account: Account
        package let amount: Int64
        package let currency: Currency
        /// What the whole amount cost in another currency (`@@`): an expense's amount charged, above 0.
        package let totalPrice: TotalPrice?

        package init(account: Account, amount: Int64, currency: Currency, totalPrice: TotalPrice? = nil) {
            self.account = account
            self.amount = amount
            self.currency = currency
            self.totalPrice = totalPrice
        }

        /// What the posting weighs when a transaction is balanced: its total price, with the amount's sign, when
        /// it has one (as the three tools weigh it), else its amount.
        var weight: (amount: Int64, currency: Currency) {
            guard let totalPrice else { return (amount, currency) }
            return (amount < 0 ? -totalPrice.amount : totalPrice.amount, totalPrice.currency)
        }
    }

    /// A posting's total price: minor units (above 0) of a currency.
    package struct TotalPrice: Hashable, Sendable {
        package let amount: Int64
        package let currency: Currency

        package init(amount: Int64, currency: Currency) {
            self.amount = amount
            self.currency = currency
        }
    }

    /// One expense or transfer.
    package struct Transaction: Sendable {
        /// What the record is.
        package enum Kind: Sendable, Equatable { case expense, transfer }

        package let kind: Kind
        package let date: CalendarDay
        /// The record's id, written as a tag (hledger) or metadata (Beancount) so a re-export is recognisable.
        package let id: UUID
        /// The expense's note, or for a transfer `FROM paid TO back`; unescaped (each format escapes its own way).
        package let description: String
        package let postings: [Posting]
    }

    /// The transactions, sorted by date, then by id (lower-case text).
    package let transactions: [Transaction]
    /// The price directives, sorted by date, then by the two codes.
    package let prices: [JournalPrice]

    /// The journal of `expenses` (live ones) and `transfers`.
    /// - Parameters:
    ///   - ledgerCurrency: the currency an expense's amount charged is in.
    ///   - names: a member's name (a category's text is the expense's own).
    /// - Throws: ``ExpenseCore/ValidationError/invalidSplit(_:)`` for a split whose shares cannot be computed (a
    ///   cache holding what no program stores), `amount_overflow` should a transaction's sum not fit (never with
    ///   amounts within ``ExpenseCore/ExpenseRules/maximumAmount``).
    package init(expenses: some Sequence<Expense>, transfers: some Sequence<Transfer>, prices: [JournalPrice],
                 ledgerCurrency: Currency, names: (UUID) -> String) throws {
        var transactions: [Transaction] = []
        for expense in expenses { transactions.append(try Self.transaction(expense, ledgerCurrency: ledgerCurrency)) }
        for transfer in transfers { transactions.append(Self.transaction(transfer, names: names)) }
        for transaction in transactions { try Self.checkBalanced(transaction) }
        self.transactions = transactions.sorted {
            ($0.date, UUIDText.lowercased($0.id)) < ($1.date, UUIDText.lowercased($1.id))
        }
        self.prices = prices.sorted { ($0.date, $0.from.code, $0.to.code) < ($1.date, $1.from.code, $1.to.code) }
    }

    /// A posting's amount as both formats write it: with its currency's minor-unit digits and the code after it,
    /// then its total price the same way after `@@` (`120.00 CHF @@ 128.40 EUR`).
    static func amount(_ posting: Posting) -> String {
        let amount = Money.format(posting.amount, currency: posting.currency, includeCode: true)
        guard let price = posting.totalPrice else { return amount }
        return amount + " @@ " + Money.format(price.amount, currency: price.currency, includeCode: true)
    }

    /// Every account some posting uses, each once, in order of first use.
    package var accounts: [Account] {
        var seen = Set<Account>()
        var accounts: [Account] = []
        for posting in transactions.lazy.flatMap(\.postings) where seen.insert(posting.account).inserted {
            accounts.append(posting.account)
        }
        return accounts
    }

    /// The earliest day of a transaction or price, when there is one (Beancount opens its accounts on it).
    package var firstDay: CalendarDay? {
        [transactions.first?.date, prices.first?.date].compactMap { $0 }.min()
    }

    /// An expense's postings (see the type's summary).
    static func transaction(_ expense: Expense, ledgerCurrency: Currency) throws -> Transaction {
        let amount = expense.amount, currency = expense.currency
        // Charged in the ledger's currency: the expense costs that, and that is what its payer's account paid.
        let charged = expense.charged.flatMap { $0 > 0 && currency != ledgerCurrency ? TotalPrice(amount: $0, currency: ledgerCurrency) : nil }
        func paid(from account: Account) -> Posting {
            charged.map { Posting(account: account, amount: -$0.amount, currency: $0.currency) }
                ?? Posting(account: account, amount: -amount, currency: currency)
        }
        // One expenses posting per category: each part in its own account, the rest in the expense's. With an amount
        // charged, each posting's total price is its share of it, divided as the amount is (the shares add up to it).
        let chargedShares = charged.map { charged in
            expense.parts.flatMap { $0.divided(charged.amount, whole: amount, expenseId: expense.id) } ?? [charged.amount]
        }
        var postings: [Posting] = []
        var index = 0
        expense.forEachCategoryShare { category, share, _ in
            let price = chargedShares.map { TotalPrice(amount: $0[index], currency: ledgerCurrency) }
            postings.append(Posting(account: .expenses(category: category), amount: share, currency: currency, totalPrice: price))
            index += 1
        }
        if let payer = expense.paidBy, let split = expense.split {
            let shares: [SplitSpec.Share]
            do throws(SplitError) {
                shares = try split.shares(amount: amount, currency: currency, expenseId: expense.id)
            } catch {
                throw ValidationError.invalidSplit(error)
            }
            postings.append(paid(from: .cash(member: payer)))
            // The payer is owed what the others' shares add up to: the amount less their own share.
            let payerShare = shares.first { $0.member == payer }?.amount ?? 0
            if amount != payerShare {
                postings.append(Posting(account: .balances(member: payer), amount: amount - payerShare, currency: currency))
            }
            for share in shares where share.member != payer && share.amount != 0 {
                postings.append(Posting(account: .balances(member: share.member), amount: -share.amount, currency: currency))
            }
        } else {
            // Unshared (a split without a payer moves no balance, as in `expense balances`): paid from the payer's
            // cash when the expense names them, else from the assets account.
            let account: Account = expense.paidBy.map { .cash(member: $0) } ?? .assets
            postings.append(paid(from: account))
        }
        return Transaction(kind: .expense, date: expense.date, id: expense.id, description: expense.note, postings: postings)
    }

    /// A transfer's four postings: `from` paid `to` back from their cash, which settles as much of their balances.
    static func transaction(_ transfer: Transfer, names: (UUID) -> String) -> Transaction {
        let amount = transfer.amount, currency = transfer.currency
        return Transaction(kind: .transfer, date: transfer.date, id: transfer.id,
                           description: "\(names(transfer.from)) paid \(names(transfer.to)) back", postings: [
                               Posting(account: .cash(member: transfer.from), amount: -amount, currency: currency),
                               Posting(account: .cash(member: transfer.to), amount: amount, currency: currency),
                               Posting(account: .balances(member: transfer.from), amount: amount, currency: currency),
                               Posting(account: .balances(member: transfer.to), amount: -amount, currency: currency),
                           ])
    }

    /// Checks that `transaction`'s postings add up to zero in each currency, each weighed as the tools weigh it
    /// (``Posting/weight``), with checked arithmetic.
    /// - Throws: ``ExpenseCore/ValidationError/invalidSplit(_:)`` when they do not (shares that do not add up to
    ///   the amount), ``ExpenseCore/SplitError/amountOverflow`` wrapped the same way when the sum does not fit.
    static func checkBalanced(_ transaction: Transaction) throws {
        var sums: [Currency: Int64] = [:]
        for posting in transaction.postings {
            let weight = posting.weight
            let (sum, overflow) = (sums[weight.currency] ?? 0).addingReportingOverflow(weight.amount)
            guard !overflow else { throw ValidationError.invalidSplit(.amountOverflow) }
            sums[weight.currency] = sum
        }
        guard sums.values.allSatisfy({ $0 == 0 }) else {
            throw ValidationError.invalidSplit(.invalidSplit(
                "the postings of \(UUIDText.lowercased(transaction.id)) do not add up to zero"))
        }
    }
}

/// One exchange rate as a price directive: on `date`, one unit of `from` was worth `rate` of `to` (hledger
/// `P 2026-12-04 EUR 1.0534 USD`, Beancount `2026-12-04 price EUR 1.0534 USD`).
package struct JournalPrice: Hashable, Sendable {
    package let date: CalendarDay
    package let from: Currency
    package let to: Currency
    /// A plain positive decimal: digits, at most one `.` with digits on both sides (`1.0534`, `150`).
    package let rate: String

    /// A price, or `nil` when `rate` is not a plain positive decimal (so that a directive never holds other text)
    /// or the two currencies are the same.
    package init?(date: CalendarDay, from: Currency, to: Currency, rate: String) {
        let parts = rate.split(separator: ".", omittingEmptySubsequences: false)
        guard from != to, (1...2).contains(parts.count),
              parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              rate.utf8.contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        self.date = date
        self.from = from
        self.to = to
        self.rate = rate
    }
}
