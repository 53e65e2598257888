import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// The most occurrences of one rule `recurring preview` lists (a rule far in the past says how many more).
    static let previewLimit = 100

    /// `expense recurring add AMOUNT CATEGORY --every N UNIT --start D [--until D | --count N] [--note T] [--currency C]
    /// [--month-end clamp|skip]`: prints the rule's id.
    func recurringAdd() throws {
        guard !command.has(ExpenseOptions.until) || !command.has(ExpenseOptions.count) else { throw usage("Give --until or --count, not both") }
        let ledger = try ledger()
        _ = try LedgerDataCache(store: ledger.store)  // the JSON cache: an error naming EXPENSE_STORE, before any other
        let currency = try command.value(ExpenseFieldOptions.currency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(command[ExpenseArguments.amount] ?? "", currency: currency)
        let (every, unit) = try interval(command[ExpenseOptions.every] ?? "")
        let monthEnd = try command.choice(ExpenseOptions.monthEnd) ?? .clamp
        var end = RecurrenceEnd.never
        if let until = try command.value(ExpenseOptions.until) { end = .until(until) }
        if let count = try command.choice(ExpenseOptions.count) { end = .count(count) }
        guard let start = try command.value(ExpenseOptions.start) else { throw usage("--start is required") }
        let rule = RecurringRule(id: UUID(), amount: amount, currency: currency, category: command[ExpenseArguments.category] ?? "",
                                 note: try command.value(ExpenseFieldOptions.note) ?? "", every: every, unit: unit, start: start, end: end,
                                 monthEnd: monthEnd, skips: [], created: Int64(now().timeIntervalSince1970.rounded(.down)))  // not money: seconds
        try ledger.put(.recurring, id: rule.id, fields: rule.fields, journal: "recurring add")
        console.out(UUIDText.lowercased(rule.id) + "\n")
        warnAboutTwins(of: rule, in: ledger)
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
        let twins = RecurringTwins(rules)
        if command[ExpenseOptions.json] { return console.out(RecurringJSON.list(rules, twins: twins)) }
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
            console.out(line + Self.twinNote(rule.id, twins) + "\n")
        }
        if !twins.groups.isEmpty { console.err(Self.twinAdvice(twins)) }
    }

    /// `expense recurring remove ID`.
    func recurringRemove() throws {
        // (Possible twins: `keep-both` and `merge` are in ExpenseRunner+RecurringTwins.swift.)
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let rule = try findRule(command[ExpenseArguments.id] ?? "", in: data)
        _ = try ledger.deleteRecord(id: rule.id, journal: "recurring remove")
        console.err("Removed the rule \(UUIDText.lowercased(rule.id).prefix(8)).")
    }

    /// `expense recurring skip ID DATE`: that occurrence never exists.
    func recurringSkip() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        var rule = try findRule(command[ExpenseArguments.id] ?? "", in: data)
        let date = try ExpenseValidator.validateDate(command[ExpenseArguments.date] ?? "")
        guard rule.occurrences(from: date, through: date).contains(date) else {
            throw CommandFailure(.dataError, "Error: invalid_date: the rule has no occurrence on \(date)")
        }
        rule.skips.insert(date)
        try ledger.put(.recurring, id: rule.id, fields: rule.fields)
        // An occurrence this cache already made of that date is deleted (and the delete synced).
        tell(try ledger.materialiseRecurring(today: ledgerToday(data)))
    }

    /// `expense recurring preview [--until DATE] [--json]`: the occurrences due, nothing written.
    func recurringPreview() throws {
        let ledger = try ledger(readOnly: true)
        let data = try LedgerDataCache(store: ledger.store)
        let until = try command.value(ExpenseOptions.until) ?? ledgerToday(data)
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
        if command[ExpenseOptions.json] {
            let ledgerId = (try? ledger.store.metaValue(.syncedLedgerId)).flatMap { $0 }.flatMap(UUIDText.parse)
            return console.out(ledgerId.map { RecurringJSON.occurrences(due, ledgerId: $0) } ?? RecurringJSON.occurrences(due))
        }
        guard !due.isEmpty else { return console.err("Nothing is due up to \(until).") }
        let money = moneyDisplay(ledger)
        for (rule, date) in due {
            console.out("\(date)  \(money.text(rule.amount, currency: rule.currency))  " + ExpenseTable.oneLine(rule.category, width: 30)
                        + "  \(UUIDText.lowercased(rule.id).prefix(8))\n")
        }
    }

    /// `expense recurring run [--json]`: creates the occurrences due up to today (at most
    /// ``LocalLedger/recurringCatchUpLimit`` per rule) and prints the expenses created, as `list` does.
    func recurringRun() throws {
        let ledger = try ledger()
        try ledger.ensureWritable()
        let data = try LedgerDataCache(store: ledger.store)  // the JSON cache: an error naming EXPENSE_STORE
        let run = try ledger.materialiseRecurring(today: ledgerToday(data))
        tell(run)
        if command[ExpenseOptions.json] {
            var stream = ExpenseStream(descriptor: STDOUT_FILENO, target: "standard output", format: .json)
            stream.begin()
            for expense in run.created { try stream.write(expense) }
            return try stream.end()
        }
        if run.created.isEmpty {
            console.err("Nothing is due.")
        } else {
            console.out(ExpenseTable.render(run.created, money: moneyDisplay(ledger)))
        }
    }

    /// The cache for a command that only reads, after materialising the recurring occurrences due (Protocol.md
    /// §10.4): a plain read when nothing is due (O(rules)); a write through a second, writable store otherwise. A
    /// cache that cannot be written (a viewer's, a read-only file) is read as it is.
    func readingLedger() throws -> LocalLedger {
        let ledger = try ledger(readOnly: true)
        guard let data = ledger.dataCache, try ledger.recurringDue(today: ledgerToday(data)) else { return ledger }
        do {
            let writable = LocalLedger(store: try home.openStore())
            tell(try writable.materialiseRecurring(today: ledgerToday(data)))
        } catch {
            console.err("Warning: recurring occurrences were not created: \(error)")
        }
        return ledger
    }

    /// What materialising did, on standard error (standard output stays the command's own).
    func tell(_ run: RecurringRun) {
        if !run.created.isEmpty, !command.path.elementsEqual(["recurring", "run"]) {
            let plural = run.created.count == 1 ? "" : "s"
            console.err("Recurring: created \(run.created.count) occurrence\(plural) due up to today.")
        }
        if !run.withdrawn.isEmpty {
            let plural = run.withdrawn.count == 1 ? "" : "s"
            console.err("Recurring: held back \(run.withdrawn.count) occurrence\(plural) of a possible twin rule (never sent); "
                        + "see `expense recurring list`.")
        }
        if !run.deleted.isEmpty {
            console.err("Recurring: deleted \(run.deleted.count) occurrence\(run.deleted.count == 1 ? "" : "s") of skipped dates.")
        }
        for limited in run.limited {
            let (rule, through) = (limited.rule, limited.through)
            console.err("Recurring: the rule \(UUIDText.lowercased(rule).prefix(8)) has more than \(LocalLedger.recurringCatchUpLimit) "
                        + "occurrences due; created the oldest \(LocalLedger.recurringCatchUpLimit), up to \(through). "
                        + "The next command (or `expense recurring run`) creates more.")
        }
    }

    func findRule(_ prefix: String, in data: LedgerDataCache) throws -> RecurringRule {
        let lowered = prefix.lowercased()
        guard lowered.count >= LocalLedger.minimumPrefixLength else { throw StoreError.idPrefixTooShort(prefix) }
        let matches = try Self.rules(data).filter { UUIDText.lowercased($0.id).hasPrefix(lowered) }
        guard let rule = matches.first else { throw StoreError.unknownId(prefix) }
        guard matches.count == 1 else { throw StoreError.ambiguousId(prefix, matches: matches.map { UUIDText.lowercased($0.id) }) }
        return rule
    }

    static func rules(_ data: LedgerDataCache) throws -> [RecurringRule] { try data.recurringRules() }
}

/// The JSON of `expense recurring list` and `preview`: amounts in minor units, keys sorted (``JSONWriter/prettyText(_:)``).
enum RecurringJSON {
    /// `twinOf` (the other rules of its open twin group) and `held` (whether its occurrences are held) appear on
    /// every rule, empty and false for most.
    static func list(_ rules: [RecurringRule], twins: RecurringTwins) -> String {
        JSONWriter.prettyText(.array(rules.map { rule in
            var members: [String: JSONValue] = [
                "twinOf": .array((twins.others[rule.id] ?? []).map { .string(UUIDText.lowercased($0)) }),
                "held": .bool(twins.held.contains(rule.id)),
                "id": .string(UUIDText.lowercased(rule.id)), "amount": .int(rule.amount), "currency": .string(rule.currency.code),
                "category": .string(rule.category), "note": .string(rule.note), "every": .int(rule.every),
                "unit": .string(rule.unit.rawValue), "start": .string(rule.start.description), "monthEnd": .string(rule.monthEnd.rawValue),
                "skips": .array(rule.skips.sorted().map { .string($0.description) }),
            ]
            switch rule.end {  // `until` or `count` only when the rule has that end
            case .never: break
            case .until(let day): members["until"] = .string(day.description)
            case .count(let value): members["count"] = .int(value)
            }
            return .object(members)
        }))
    }

    /// `id` is the expense id the occurrence will have, derived from the rule and the date (Protocol.md §10.4);
    /// without a synced ledger id, the nil UUID stands for the ledger.
    static func occurrences(_ due: [(RecurringRule, CalendarDay)], ledgerId: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) -> String {
        JSONWriter.prettyText(.array(due.map { rule, date in
            .object(["rule": .string(UUIDText.lowercased(rule.id)),
                     "id": .string(UUIDText.lowercased(RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: rule.id, date: date))),
                     "date": .string(date.description), "amount": .int(rule.amount), "currency": .string(rule.currency.code),
                     "category": .string(rule.category), "note": .string(rule.note)])
        }))
    }
}
