import FoundationEssentials

/// An exchange rate (`expense rate set DATE FROM TO RATE`): on ``date``, 1 ``from`` = ``rate`` ``to``.
///
/// Its id is derived from (date, from, to) (``id(date:from:to:)``), so a ledger holds at most one rate for a day
/// and a pair, and two machines setting it offline write the same record: the same rate is one record, two
/// different rates a conflict of the `rate` field, shown and resolved like any other (Protocol.md §10.7).
public struct ExchangeRate: Hashable, Sendable, Identifiable {
    /// ``id(date:from:to:)`` of the record's day and currencies.
    public let id: UUID
    /// The day the rate holds from (until a later rate of the pair).
    public let date: CalendarDay
    /// The currency of which one unit is worth ``rate``.
    public let from: Currency
    /// The currency ``rate`` counts in; never ``from`` in a valid record (``LedgerDataValidator/rate(id:fields:)``).
    public let to: Currency
    /// How many ``to`` one ``from`` is worth.
    public var rate: Rate

    /// The rate 1 `from` = `rate` `to` on `date`, with its derived id.
    public init(date: CalendarDay, from: Currency, to: Currency, rate: Rate) {
        self.id = Self.id(date: date, from: from, to: to)
        self.date = date
        self.from = from
        self.to = to
        self.rate = rate
    }

    /// The rate as record fields (``LedgerDataValidator/rate(id:fields:)`` reads them back).
    public var fields: LedgerDataFields {
        ["date": .text(date.description), "from": .text(from.code), "to": .text(to.code), "rate": .text(rate.description)]
    }

    /// The namespace of rate ids (a random UUID chosen once for this program).
    public static let namespace = UUID(uuid: (0x3c, 0x9a, 0x71, 0xe2, 0x5d, 0x08, 0x4b, 0x6f,
                                              0x92, 0x1d, 0xa4, 0x57, 0x0e, 0xc3, 0x8b, 0x26))

    /// The id of the rate of `from` in `to` on `date`: a name-based UUID of the day (`YYYY-MM-DD`) and the two
    /// codes, so every machine gives one day and pair one record.
    public static func id(date: CalendarDay, from: Currency, to: Currency) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: NameBasedUUID.name([date.description, from.code, to.code]))
    }
}
