import ExpenseCore

// The members every converted view shares on the wire (`summary`, `stats`, `balances`): `in` and `at` in the
// params, and `in`, `at` and `unconverted` in the result, read and written once so the methods cannot disagree.

extension ParamsReader {
    /// `in` (an active ISO 4217 code) and `at` (`then`, `end` or a day; `then` when absent): the conversion the
    /// params ask for, `nil` without `in`.
    /// - Throws: ``RPCError``: −32602 `invalid_params` naming `in` or `at`; `at` without `in` names `at`.
    func conversion() throws(RPCError) -> ViewConversion? {
        let valuation = try optionalString("at").map { text throws(RPCError) -> Valuation in
            guard let valuation = Valuation(text) else { throw .invalidParams("at must be then, end or YYYY-MM-DD", field: "at") }
            return valuation
        }
        guard let code = try optionalString("in") else {
            if valuation != nil { throw .invalidParams("at values amounts for in; give in too", field: "at") }
            return nil
        }
        guard let target = Currency(code: code) else { throw .invalidParams("in must be an active ISO 4217 code", field: "in") }
        return ViewConversion(target: target, valuation: valuation ?? .then)
    }
}

extension ResultReader {
    /// A converted result's `in` and `at`, and its `unconverted` entries (required when `in` is present); `nil`
    /// and none when the result has no `in`.
    func conversion() throws(ProtocolDecodingError) -> (conversion: ViewConversion?, unconverted: [UnconvertedTotal]) {
        guard let code = try optionalString("in") else { return (nil, []) }
        guard let target = Currency(code: code) else { throw .invalidMember(path: sub("in"), detail: "unknown currency") }
        guard let valuation = Valuation(try string("at")) else {
            throw .invalidMember(path: sub("at"), detail: "expected then, end or YYYY-MM-DD")
        }
        var unconverted: [UnconvertedTotal] = []
        for (index, element) in try array("unconverted").enumerated() {
            let left = try ResultReader(element, path: sub("unconverted") + "[\(index)]")
            func day(_ key: String) throws(ProtocolDecodingError) -> CalendarDay {
                guard let day = CalendarDay(try left.string(key)) else { throw .invalidMember(path: left.sub(key), detail: "expected YYYY-MM-DD") }
                return day
            }
            guard let currency = Currency(code: try left.string("currency")) else {
                throw .invalidMember(path: left.sub("currency"), detail: "unknown currency")
            }
            guard let reason = UnconvertedTotal.Reason(rawValue: try left.string("reason")) else {
                throw .invalidMember(path: left.sub("reason"), detail: "expected no_rate or overflow")
            }
            let amount = try left.value("amount").isNull ? nil : try left.int64("amount")
            unconverted.append(UnconvertedTotal(currency: currency, reason: reason, amount: amount,
                                                count: try left.int64("count"), firstDay: try day("firstDay"), lastDay: try day("lastDay")))
        }
        return (ViewConversion(target: target, valuation: valuation), unconverted)
    }
}

extension JSONWriter {
    /// `"unconverted":[{"amount","count","currency","firstDay","lastDay","reason"}…]`: what a converted view left
    /// out, one entry per currency and reason (`amount` `null` when their sum does not fit in 64 bits).
    mutating func unconverted(_ unconverted: [UnconvertedTotal]) {
        key("unconverted")
        beginArray()
        for left in unconverted {
            beginObject()
            member("amount", left.amount.map { JSONValue.number(JSONNumber($0)) } ?? .null)
            member("count", left.count)
            member("currency", left.currency.code)
            member("firstDay", left.firstDay.description)
            member("lastDay", left.lastDay.description)
            member("reason", left.reason.rawValue)
            endObject()
        }
        endArray()
    }
}
