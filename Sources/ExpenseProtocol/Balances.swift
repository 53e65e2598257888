import ExpenseCore
import FoundationEssentials

/// `balances` `{"currency":…?,"in":…?,"at":…?,"today":…?}` (Protocol.md §5.11): per member and currency (or in one
/// currency with `in`), what each paid for shared expenses, their share and the difference, computed by the daemon
/// from its own records with the core's ``Balances``, the function a client runs over its local copy.
public struct BalancesRequest: RPCMethodRequest, Hashable {
    public typealias Response = BalancesResult
    public static let method = "balances"

    /// Only this currency's balances; `nil`: every currency. With ``conversion``, only the records in this
    /// currency, before they are converted.
    public var currency: Currency?
    /// `in` and `at`: every shared expense and transfer converted once into one currency with the ledger's rates
    /// (a shared expense's amount before it is divided); `nil`: per currency.
    public var conversion: ViewConversion?
    /// `today`: the day `at: end` values amounts on (balances have no range); `nil`: the daemon's local day.
    public var today: CalendarDay?

    public init(currency: Currency? = nil, conversion: ViewConversion? = nil, today: CalendarDay? = nil) {
        self.currency = currency
        self.conversion = conversion
        self.today = today
    }

    /// Reads the params; every member is optional and `params` may be omitted.
    ///
    /// `currency` not a string, or not an active ISO 4217 code in upper case: −32602 `invalid_params`, field
    /// `currency`; a bad `in`, `at` or `today`, or `at` without `in`, names that member.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        var currency: Currency?
        if let code = try reader.optionalString("currency") {
            guard let parsed = Currency(code: code) else {
                throw .invalidParams("currency must be an active ISO 4217 code in upper case", field: "currency")
            }
            currency = parsed
        }
        self.init(currency: currency, conversion: try reader.conversion(), today: try reader.optionalDay("today"))
    }

    /// Writes `{"at"?,"currency"?,"in"?,"today"?}`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        if let currency { writer.member("currency", currency.code) }
        if let conversion { writer.member("in", conversion.target.code) }
        if let today { writer.member("today", today.description) }
        writer.endObject()
    }
}

/// The answer to `balances`: one row per member and currency, and the head they reflect.
public struct BalancesResult: Hashable, Sendable {
    /// One member's balance in one currency.
    public struct Row: Hashable, Sendable {
        public var currency: Currency
        public var balance: MemberBalance

        public init(currency: Currency, balance: MemberBalance) {
            self.currency = currency
            self.balance = balance
        }
    }

    /// Sorted by currency code, then member id (as the daemon writes them).
    public var balances: [Row]
    public var cursor: Int64
    /// The request's conversion, when it asked for one: every row is then in its currency.
    public var conversion: ViewConversion?
    /// What that conversion left out, by currency then reason (never in the figures).
    public var unconverted: [UnconvertedTotal]

    public init(balances: [Row], cursor: Int64, conversion: ViewConversion? = nil, unconverted: [UnconvertedTotal] = []) {
        self.balances = balances
        self.cursor = cursor
        self.conversion = conversion
        self.unconverted = unconverted
    }

    /// The rows of `balances` in `currency` (in every currency when `nil`; none for a currency without shared
    /// expenses), sorted by currency code, then member id: the order ``Balances`` gives them.
    public init(_ balances: Balances, currency: Currency?, cursor: Int64, conversion: ViewConversion? = nil,
                unconverted: [UnconvertedTotal] = []) {
        let currencies = currency.map { [$0] } ?? balances.currencies
        self.init(balances: currencies.flatMap { currency in balances.balances(in: currency).map { Row(currency: currency, balance: $0) } },
                  cursor: cursor, conversion: conversion, unconverted: unconverted)
    }
}

extension BalancesResult: RPCResult {
    /// About 120 bytes a row (a member id is 36 of them).
    public var encodedSizeHint: Int { 64 + balances.count * 120 + unconverted.count * 128 }

    /// Writes `{"at"?,"balances":[{"currency","member","net","paid","share"}…],"cursor","in"?,"unconverted"?:[…]}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        writer.key("balances")
        writer.beginArray()
        for row in balances {
            writer.beginObject()
            writer.member("currency", row.currency.code)
            writer.key("member"); writer.uuid(row.balance.member)
            writer.member("net", row.balance.net)
            writer.member("paid", row.balance.paid)
            writer.member("share", row.balance.share)
            writer.endObject()
        }
        writer.endArray()
        writer.member("cursor", cursor)
        if let conversion {
            writer.member("in", conversion.target.code)
            writer.unconverted(unconverted)
        }
        writer.endObject()
    }

    /// Reads the daemon's answer; a row whose `net` is not `paid - share` (or with a negative `paid` or `share`)
    /// is refused, never shown.
    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        var rows: [Row] = []
        for (index, element) in try reader.array("balances").enumerated() {
            let row = try ResultReader(element, path: "result.balances[\(index)]")
            guard let currency = Currency(code: try row.string("currency")) else {
                throw .invalidMember(path: row.sub("currency"), detail: "unknown currency")
            }
            guard let member = UUIDText.parse(try row.string("member")) else {
                throw .invalidMember(path: row.sub("member"), detail: "expected a UUID")
            }
            guard let balance = MemberBalance.checked(member: member, paid: try row.int64("paid"), share: try row.int64("share"),
                                              net: try row.int64("net")) else {
                throw .invalidMember(path: row.sub("net"), detail: "paid and share must be at least 0 and net exactly paid - share")
            }
            rows.append(Row(currency: currency, balance: balance))
        }
        let (conversion, unconverted) = try reader.conversion()
        self.init(balances: rows, cursor: try reader.int64("cursor"), conversion: conversion, unconverted: unconverted)
    }
}
