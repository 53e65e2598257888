import ExpenseCore
import Foundation

/// The JSON shapes `expense` prints. Amounts are integers in minor units; keys are sorted so output is stable.
enum ExpenseJSON {
    struct Total: Encodable { var currency: String, amount: Int64, count: Int64 }
    struct Group: Encodable { var key: String, currency: String, amount: Int64, count: Int64 }
    struct SummaryBody: Encodable { var groupBy: String, totals: [Total], groups: [Group] }

    static func summary(_ summary: Summary, groupBy: SummaryGrouping) throws -> String {
        try encode(SummaryBody(
            groupBy: groupBy.rawValue,
            totals: summary.totals.map { Total(currency: $0.currency.code, amount: $0.amount, count: $0.count) },
            groups: summary.groups.map { Group(key: $0.key, currency: $0.currency.code, amount: $0.amount, count: $0.count) }))
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
