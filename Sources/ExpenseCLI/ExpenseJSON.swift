import ExpenseCore
import ExpenseProtocol

/// The JSON of `expense summary --json`: amounts are integers in minor units; keys are sorted so output is
/// stable (``JSONWriter/prettyText(_:)``, the one layout of every `--json`).
enum ExpenseJSON {
    static func summary(_ summary: Summary, groupBy: SummaryGrouping, conversion: ViewConversion? = nil,
                        unconverted: [UnconvertedTotal] = []) -> JSONValue {
        var object: [String: JSONValue] = [
            "groupBy": .string(groupBy.rawValue),
            "totals": .array(summary.totals.map {
                .object(["currency": .string($0.currency.code), "amount": .int($0.amount), "count": .int($0.count)])
            }),
            "groups": .array(summary.groups.map {
                .object(["key": .string($0.key), "currency": .string($0.currency.code), "amount": .int($0.amount), "count": .int($0.count)])
            }),
        ]
        // A converted summary: its currency, its valuation, and what it left out (never in the totals).
        if let conversion {
            object["in"] = .string(conversion.target.code)
            object["at"] = .string(conversion.valuation.description)
            object["unconverted"] = ExpenseRunner.unconvertedJSON(unconverted)
        }
        return .object(object)
    }
}
