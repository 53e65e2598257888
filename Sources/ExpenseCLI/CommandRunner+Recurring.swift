import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

extension CommandRunner {
    /// The most occurrences of one rule `recurring preview` lists (a rule far in the past says how many more).
    static let previewLimit = 100

    /// `expense recurring add AMOUNT CATEGORY --every N UNIT --start D [--until D | --count N] [--note T] [--currency C]
    /// [--month-end clamp|skip]`: prints the rule's id.
    func recurringAdd() throws {
        guard command.option("until") == nil || command.option("count") == nil else { throw usage("Give --until or --count, not both") }
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let currency = try command.option("currency").map(ExpenseValidator.validateCurrency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(command.argument("amount") ?? "", currency: currency)
        let (every, unit) = try interval(command.option("every") ?? "")
        let monthEnd = try command.option("month-end").map { text in
            guard let value = MonthEndPolicy(rawValue: text) else { throw usage("--month-end must be clamp or skip, not '\(text)'") }
            return value
        } ?? .clamp
        var end = RecurrenceEnd.never
        if let until = try day("until") { end = .until(until) }
        if let countText = command.option("count") {
            guard let count = Int(countText) else { throw usage("--count must be a whole number, not '\(countText)'") }
            end = .count(count)
        }
        guard let start = try day("start") else { throw usage("--start is required") }
        let rule = RecurringRule(id: UUID(), amount: amount, currency: currency, category: command.argument("category") ?? "",
                                 note: command.option("note") ?? "", every: every, unit: unit, start: start, end: end,
                                 monthEnd: monthEnd, skips: [])
        try data.put(.recurring, id: rule.id, fields: rule.fields)
        console.out(UUIDText.lowercased(rule.id) + "\n")
    }

    /// `month`, `1 month`, `2 weeks`: the interval of `--every`.
    private func interval(_ text: String) throws -> (Int, RecurrenceUnit) {
        let words = text.split(separator: " ").map(String.init)
        let count = words.count == 2 ? Int(words[0]) : (words.count == 1 ? 1 : nil)
        var unitText = words.last ?? ""
        if unitText.hasSuffix("s") { unitText.removeLast() }
        guard let count, let unit = RecurrenceUnit(rawValue: unitText) else {
            throw usage("--every must be a unit (day, week, month, year) or a number and a unit, such as '2 weeks', not '\(text)'")
        }
        return (count, unit)
    }

    /// `expense recurring list [--json]`.
    func recurringList() throws {
        let ledger = try ledger(readOnly: true)
        let rules = try Self.rules(LedgerDataCache(store: ledger.store))
        if command.flag("json") { return console.out(try RecurringJSON.list(rules)) }
        guard !rules.isEmpty else { return console.err("No recurring rules.") }
        let money = moneyDisplay(ledger)
        for rule in rules {
            var line = "\(UUIDText.lowercased(rule.id).prefix(8))  \(money.text(rule.amount, currency: rule.currency))  "
                + ExpenseTable.oneLine(rule.category, width: 30) + "  every \(rule.every) \(rule.unit.rawValue)\(rule.every == 1 ? "" : "s") from \(rule.start)"
            switch rule.end {
            case .never: break
            case .until(let day): line += " until \(day)"
            case .count(let count): line += ", \(count) times"
            }
            if rule.monthEnd == .skip { line += ", month ends skipped" }
            if !rule.skips.isEmpty { line += ", \(rule.skips.count) skipped" }
            console.out(line + "\n")
        }
    }

    /// `expense recurring remove ID`.
    func recurringRemove() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let rule = try findRule(command.argument("id") ?? "", in: data)
        _ = try data.delete(id: rule.id)
        console.err("Removed the rule \(UUIDText.lowercased(rule.id).prefix(8)).")
    }

    /// `expense recurring skip ID DATE`: that occurrence never exists.
    func recurringSkip() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        var rule = try findRule(command.argument("id") ?? "", in: data)
        let date = try ExpenseValidator.validateDate(command.argument("date") ?? "")
        guard rule.occurrences(from: date, through: date).contains(date) else {
            throw CommandFailure(.dataError, "Error: invalid_date: the rule has no occurrence on \(date)")
        }
        rule.skips.insert(date)
        try data.put(.recurring, id: rule.id, fields: rule.fields)
    }

    /// `expense recurring preview [--until DATE] [--json]`: the occurrences due, nothing written.
    func recurringPreview() throws {
        let ledger = try ledger(readOnly: true)
        let data = try LedgerDataCache(store: ledger.store)
        let until = try day("until") ?? ledgerToday(data)
        var due: [(RecurringRule, CalendarDay)] = []
        for rule in try Self.rules(data) {
            let dates = rule.occurrences(through: until, limit: Self.previewLimit + 1)
            if dates.count > Self.previewLimit {
                console.err("The rule \(UUIDText.lowercased(rule.id).prefix(8)) has more than \(Self.previewLimit) occurrences "
                            + "up to \(until); the first \(Self.previewLimit) are shown.")
            }
            due += dates.prefix(Self.previewLimit).map { (rule, $0) }
        }
        due.sort { ($0.1, $0.0.category) < ($1.1, $1.0.category) }
        if command.flag("json") {
            let ledgerId = (try? ledger.store.metaValue(.syncedLedgerId)).flatMap { $0 }.flatMap(UUIDText.parse)
            return console.out(try ledgerId.map { try RecurringJSON.occurrences(due, ledgerId: $0) } ?? RecurringJSON.occurrences(due))
        }
        guard !due.isEmpty else { return console.err("Nothing is due up to \(until).") }
        let money = moneyDisplay(ledger)
        for (rule, date) in due {
            console.out("\(date)  \(money.text(rule.amount, currency: rule.currency))  " + ExpenseTable.oneLine(rule.category, width: 30)
                        + "  \(UUIDText.lowercased(rule.id).prefix(8))\n")
        }
    }

    private func findRule(_ prefix: String, in data: LedgerDataCache) throws -> RecurringRule {
        let lowered = prefix.lowercased()
        guard lowered.count >= LocalLedger.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let matches = try Self.rules(data).filter { UUIDText.lowercased($0.id).hasPrefix(lowered) }
        guard let rule = matches.first else { throw StoreError.unknownId(prefix) }
        guard matches.count == 1 else { throw StoreError.ambiguousId(prefix, matches: matches.map { UUIDText.lowercased($0.id) }) }
        return rule
    }

    static func rules(_ data: LedgerDataCache) throws -> [RecurringRule] {
        try data.records(.recurring).compactMap { try? LedgerDataValidator.recurring(id: $0.id, fields: $0.fields) }
            .sorted { ($0.start, UUIDText.lowercased($0.id)) < ($1.start, UUIDText.lowercased($1.id)) }
    }
}

/// The JSON of `expense recurring list` and `preview`: amounts in minor units, keys sorted.
enum RecurringJSON {
    struct Rule: Encodable {
        var id: String, amount: Int64, currency: String, category: String, note: String, every: Int, unit: String
        var start: String, until: String?, count: Int?, monthEnd: String, skips: [String]
    }
    struct Occurrence: Encodable { var rule: String, id: String, date: String, amount: Int64, currency: String, category: String, note: String }

    static func list(_ rules: [RecurringRule]) throws -> String {
        try encode(rules.map { rule in
            var until: String?, count: Int?
            switch rule.end {
            case .never: break
            case .until(let day): until = day.description
            case .count(let value): count = value
            }
            return Rule(id: UUIDText.lowercased(rule.id), amount: rule.amount, currency: rule.currency.code, category: rule.category,
                        note: rule.note, every: rule.every, unit: rule.unit.rawValue, start: rule.start.description, until: until,
                        count: count, monthEnd: rule.monthEnd.rawValue, skips: rule.skips.sorted().map(\.description))
        })
    }

    /// `id` is the expense id the occurrence will have, derived from the rule and the date (Protocol.md §10.4);
    /// without a synced ledger id, the nil UUID stands for the ledger.
    static func occurrences(_ due: [(RecurringRule, CalendarDay)], ledgerId: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) throws -> String {
        try encode(due.map { rule, date in
            Occurrence(rule: UUIDText.lowercased(rule.id), id: UUIDText.lowercased(RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: rule.id, date: date)),
                       date: date.description, amount: rule.amount, currency: rule.currency.code, category: rule.category, note: rule.note)
        })
    }

    private static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
