/// A ledger's exchange rates, arranged to answer "which rates convert FROM into TO on DAY" quickly: per ordered
/// pair of currencies, the rates sorted by date, found by binary search (a summary may convert a million
/// expenses). The one lookup rule of the client and the daemon (``path(on:from:to:)``).
public struct RateTable: Sendable {
    /// The ledger's currency: the one currency a conversion may go through.
    public let ledgerCurrency: Currency
    /// Each ordered pair's rates by date, ascending.
    private let byPair: [Pair: [ExchangeRate]]

    private struct Pair: Hashable, Sendable {
        let from: Currency
        let to: Currency
    }

    /// The table of `rates` for a ledger whose currency is `ledgerCurrency`. A rate of a currency into itself is
    /// left out (the validator refuses such a record; no conversion needs one). Of two rates of one day and
    /// pair (a derived id makes them one record, so only a caller's list can hold two), the later in `rates` wins.
    public init(_ rates: some Sequence<ExchangeRate>, ledgerCurrency: Currency) {
        var byPair: [Pair: [ExchangeRate]] = [:]
        for rate in rates where rate.from != rate.to { byPair[Pair(from: rate.from, to: rate.to), default: []].append(rate) }
        for (pair, list) in byPair {
            // Stable: the index breaks ties, so the later of one day's rates sorts last and is the one found.
            byPair[pair] = list.enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        }
        self.byPair = byPair
        self.ledgerCurrency = ledgerCurrency
    }

    /// Whether the table holds no rate.
    public var isEmpty: Bool { byPair.isEmpty }

    /// How `from` becomes `to` on `day`, exactly in this order:
    /// 1. `from` == `to`: the identity (no rate, never a rate of 1 looked up);
    /// 2. the latest `from` → `to` rate dated on or before `day`;
    /// 3. else the inverse of the latest `to` → `from` rate dated on or before `day`;
    /// 4. else through the ledger's currency L: `from` → L found as in 2–3, then L → `to` found as in 2–3.
    ///
    /// Never a longer chain and never a rate dated after `day`.
    /// - Returns: the path, or `nil` when no rate serves.
    public func path(on day: CalendarDay, from: Currency, to: Currency) -> ConversionPath? {
        guard from != to else { return .identity(from) }
        if let step = leg(on: day, from: from, to: to) { return ConversionPath(from: from, to: to, steps: [step]) }
        guard from != ledgerCurrency, to != ledgerCurrency, let first = leg(on: day, from: from, to: ledgerCurrency),
              let second = leg(on: day, from: ledgerCurrency, to: to) else { return nil }
        return ConversionPath(from: from, to: to, steps: [first, second])
    }

    /// `amount` minor units of `currency` in minor units of `target` on `day` (``path(on:from:to:)``, then
    /// ``Conversion/convert(_:along:)``).
    public func convert(_ amount: Int64, _ currency: Currency, on day: CalendarDay, into target: Currency) -> ConversionOutcome {
        guard let path = path(on: day, from: currency, to: target) else { return .noRate }
        guard let converted = Conversion.convert(amount, along: path) else { return .overflow(path) }
        return .converted(converted, path)
    }

    /// The rates of `from` → `to`, by date (for listings and tests).
    public func rates(from: Currency, to: Currency) -> [ExchangeRate] { byPair[Pair(from: from, to: to)] ?? [] }

    /// One rate from `from` into `to` on `day`: the pair's own (2), else its reverse inverted (3).
    private func leg(on day: CalendarDay, from: Currency, to: Currency) -> ConversionStep? {
        if let rate = latest(on: day, in: byPair[Pair(from: from, to: to)]) { return ConversionStep(rate: rate, inverted: false) }
        if let rate = latest(on: day, in: byPair[Pair(from: to, to: from)]) { return ConversionStep(rate: rate, inverted: true) }
        return nil
    }

    /// The last of `rates` (sorted by date) dated on or before `day`: a binary search for the first dated after it.
    private func latest(on day: CalendarDay, in rates: [ExchangeRate]?) -> ExchangeRate? {
        guard let rates else { return nil }
        var low = 0, high = rates.count
        while low < high {
            let middle = low + (high - low) / 2
            if rates[middle].date <= day { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? rates[low - 1] : nil
    }
}
