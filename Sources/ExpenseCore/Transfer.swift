import FoundationEssentials

/// Money one member paid another back (`expense settle record FROM TO AMOUNT`): it moves balances and is never
/// spending, so no total, statistic, budget or report counts it.
public struct Transfer: Hashable, Sendable, Identifiable {
    /// The record id, made once by the machine that recorded it.
    public let id: UUID
    /// The member who paid.
    public var from: UUID
    /// The member who was paid; never ``from``.
    public var to: UUID
    /// Minor units of ``currency``, 1 … 2^53−1 (an expense amount's range).
    public var amount: Int64
    public var currency: Currency
    public var date: CalendarDay

    public init(id: UUID, from: UUID, to: UUID, amount: Int64, currency: Currency, date: CalendarDay) {
        self.id = id
        self.from = from
        self.to = to
        self.amount = amount
        self.currency = currency
        self.date = date
    }

    /// The transfer as record fields (``LedgerDataValidator/transfer(id:fields:)`` reads them back).
    public var fields: LedgerDataFields {
        ["from": .text(UUIDText.lowercased(from)), "to": .text(UUIDText.lowercased(to)), "amount": .integer(amount),
         "currency": .text(currency.code), "date": .text(date.description)]
    }

    /// What it does to balances: `from` paid `amount`, all of it `to`'s share.
    public var balanceEntry: BalanceEntry { .transfer(from: from, to: to, amount: amount, currency: currency) }
}
