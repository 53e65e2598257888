import ExpenseCore

/// `summary` `{"from":"YYYY-MM-DD"?,"to":"YYYY-MM-DD"?,"category":…?,"groupBy":"none"|"category"|"month"?}`.
public struct SummaryRequest: RPCMethodRequest, Hashable {
    public typealias Response = SummaryResult
    public static let method = "summary"

    public var query: SummaryQuery
    /// `in` and `at`: every amount converted into one currency with the ledger's rates (section 5.4); `nil`: per
    /// currency, from the daemon's aggregates.
    public var conversion: ViewConversion?

    public init(query: SummaryQuery = SummaryQuery(), conversion: ViewConversion? = nil) {
        self.query = query
        self.conversion = conversion
    }

    /// Reads the params; every member is optional and `params` may be omitted.
    ///
    /// `from`/`to` not a real day `YYYY-MM-DD` (1900-01-01 … 9999-12-31), `category` not a string, or `groupBy`
    /// not one of `none`, `category`, `month`: −32602 `invalid_params` naming the member. `from` after `to` is
    /// allowed and matches nothing.
    /// - Throws: ``RPCError``.
    public init(params: JSONValue?) throws(RPCError) {
        let reader = try ParamsReader(params)
        var grouping = SummaryGrouping.none
        if let text = try reader.optionalString("groupBy") {
            guard let parsed = SummaryGrouping(rawValue: text) else {
                throw .invalidParams("groupBy must be none, category or month", field: "groupBy")
            }
            grouping = parsed
        }
        query = SummaryQuery(from: try reader.optionalDay("from"), to: try reader.optionalDay("to"), category: try reader.optionalString("category"),
                             groupBy: grouping, tags: try reader.tags())
        conversion = try reader.conversion()
    }

    /// Writes `{"at"?,"category"?,"from"?,"groupBy","in"?,"tags"?,"to"?}`.
    public func writeParams(to writer: inout JSONWriter) {
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        if let category = query.category { writer.member("category", category) }
        if let from = query.from { writer.member("from", from.description) }
        writer.member("groupBy", query.groupBy.rawValue)
        if let conversion { writer.member("in", conversion.target.code) }
        if !query.tags.isEmpty { writer.member("tags", JSONValue.array(query.tags.map(JSONValue.string))) }
        if let to = query.to { writer.member("to", to.description) }
        writer.endObject()
    }
}

/// `summary` result: computed by the daemon from its own records.
public struct SummaryResult: Hashable, Sendable {
    public var summary: Summary
    public var cursor: Int64
    /// The request's conversion, when it asked for one: the totals are then all in its currency.
    public var conversion: ViewConversion?
    /// What that conversion left out, by currency then reason (never in the totals).
    public var unconverted: [UnconvertedTotal]

    public init(summary: Summary, cursor: Int64, conversion: ViewConversion? = nil, unconverted: [UnconvertedTotal] = []) {
        self.summary = summary
        self.cursor = cursor
        self.conversion = conversion
        self.unconverted = unconverted
    }
}

extension SummaryResult: RPCResult {
    /// Writes `{"at"?,"cursor":…,"groups":[{"amount","count","currency","key"}…],"in"?,"totals":[{"amount","count","currency"}…],
    /// "unconverted"?:[{"amount","count","currency","firstDay","lastDay","reason"}…]}`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let conversion { writer.member("at", conversion.valuation.description) }
        writer.member("cursor", cursor)
        writer.key("groups")
        writer.beginArray()
        for group in summary.groups {
            writer.beginObject()
            writer.member("amount", group.amount)
            writer.member("count", group.count)
            writer.member("currency", group.currency.code)
            writer.member("key", group.key)
            writer.endObject()
        }
        writer.endArray()
        if let conversion { writer.member("in", conversion.target.code) }
        writer.key("totals")
        writer.beginArray()
        for total in summary.totals {
            writer.beginObject()
            writer.member("amount", total.amount)
            writer.member("count", total.count)
            writer.member("currency", total.currency.code)
            writer.endObject()
        }
        writer.endArray()
        if conversion != nil { writer.unconverted(unconverted) }
        writer.endObject()
    }

    public init(json: JSONValue) throws(ProtocolDecodingError) {
        let reader = try ResultReader(json, path: "result")
        func currency(_ reader: ResultReader) throws(ProtocolDecodingError) -> Currency {
            let code = try reader.string("currency")
            guard let currency = Currency(code: code) else { throw .invalidMember(path: reader.sub("currency"), detail: "unknown currency") }
            return currency
        }
        var totals: [CurrencyTotal] = []
        for (index, element) in try reader.array("totals").enumerated() {
            let total = try ResultReader(element, path: "result.totals[\(index)]")
            totals.append(CurrencyTotal(currency: try currency(total), amount: try total.int64("amount"), count: try total.int64("count")))
        }
        var groups: [GroupTotal] = []
        for (index, element) in try reader.array("groups").enumerated() {
            let group = try ResultReader(element, path: "result.groups[\(index)]")
            groups.append(GroupTotal(key: try group.string("key"), currency: try currency(group),
                                     amount: try group.int64("amount"), count: try group.int64("count")))
        }
        let (conversion, unconverted) = try reader.conversion()
        self.init(summary: Summary(totals: totals, groups: groups), cursor: try reader.int64("cursor"), conversion: conversion,
                  unconverted: unconverted)
    }
}
