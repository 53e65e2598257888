import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

extension ExpenseRunner {
    /// `expense rule add …`: a rule after the ledger's others; prints its id.
    func ruleAdd() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let existing = try Self.importRules(data)
        var conditions: [RuleCondition] = []
        for text in try command.values(ExpenseOptions.ruleMatch) { conditions.append(try Self.condition(text)) }
        let amountFrom = try command.value(ExpenseOptions.amountFrom).map { try ruleAmount($0, option: "--amount-from") }
        let amountTo = try command.value(ExpenseOptions.amountTo).map { try ruleAmount($0, option: "--amount-to") }
        if amountFrom != nil || amountTo != nil { conditions.append(.amount(from: amountFrom, to: amountTo)) }
        let dateFrom = try command.value(ExpenseOptions.dateFrom), dateTo = try command.value(ExpenseOptions.dateTo)
        if dateFrom != nil || dateTo != nil { conditions.append(.date(from: dateFrom, to: dateTo)) }
        let names = try memberNames(ledger)
        var actions: [RuleAction] = try command.values(ExpenseOptions.setCategory).map(RuleAction.setCategory)
        actions += try command.values(ExpenseOptions.addTag).map(RuleAction.addTag)
        actions += try command.values(ExpenseOptions.setNote).map(RuleAction.setNote)
        for name in try command.values(ExpenseOptions.setPaidBy) {
            let member = try Self.member(named: name, in: names.members)
            guard member.isActive else {
                throw CommandFailure(.dataError, "Error: member_left: \(DisplayText.quoted(member.name)) has left the ledger")
            }
            actions.append(.setPaidBy(member.id))
        }
        for typed in try command.values(ExpenseOptions.setSplit) {
            actions.append(.setSplit(try names.split(typed, currency: ledger.defaultCurrency())))
        }
        for text in try command.values(ExpenseOptions.rulePart) {
            guard let equals = text.lastIndex(of: "="), let amount = RuleAmount(String(text[text.index(after: equals)...])) else {
                throw usage("--part takes CATEGORY=AMOUNT, such as household=12.30, not '\(text)'")
            }
            actions.append(.part(category: String(text[..<equals]), amount: amount))
        }
        guard !conditions.isEmpty else { throw usage("Give at least one condition: --match, --amount-from/--amount-to or --date-from/--date-to") }
        guard !actions.isEmpty else {
            throw usage("Give at least one action: --set-category, --add-tag, --set-note, --set-paid-by, --set-split or --part")
        }
        let last = existing.last?.position
        let rule = ImportRule(id: UUID(), name: command[ExpenseOptions.ruleName] ?? "", position: ImportRule.position(after: last),
                              matchesAny: command[ExpenseOptions.matchAny], conditions: conditions, actions: actions)
        // The record's own checks (an invalid regex names its position, a tag or part no expense could hold).
        let checked = try LedgerDataValidator.importRule(id: rule.id, fields: rule.fields)
        try ledger.put(.rule, id: rule.id, fields: checked.fields, journal: "rule add")
        console.out(UUIDText.lowercased(rule.id) + "\n")
    }

    /// `expense rule list [--json]`: the rules in the order they run.
    func ruleList() throws {
        let ledger = try ledger(readOnly: true)
        let data = try LedgerDataCache(store: ledger.store)
        let rules = try Self.importRules(data)
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(rules.map { rule in
                var object = Self.jsonObject(rule.fields)
                object["id"] = .string(UUIDText.lowercased(rule.id))
                object["name"] = .string(rule.name)
                return .object(object)
            })))
            return
        }
        guard !rules.isEmpty else { return console.err("No rules; add one with `expense rule add`.") }
        let conflicted = Set(try data.conflictDetails().map(\.id))
        let members = MemberDirectory(members: try memberNames(ledger).members)
        for (index, rule) in rules.enumerated() {
            console.out("\(index + 1). \(UUIDText.lowercased(rule.id).prefix(8))" + (rule.name.isEmpty ? "" : "  \(DisplayText.quoted(rule.name))")
                        + "  if " + RuleDisplay.conditions(rule) + " then " + RuleDisplay.actions(rule, names: members)
                        + (conflicted.contains(rule.id) ? "  CONFLICT" : "") + "\n")
        }
        if !conflicted.isEmpty {
            console.err("A rule marked CONFLICT was changed on another machine too: it shows the daemon's side; "
                        + "`expense conflicts` shows both.")
        }
    }

    /// `expense rule remove ID`.
    func ruleRemove() throws {
        let ledger = try ledger()
        let rule = try Self.rule(command[ExpenseArguments.ruleId] ?? "", in: Self.importRules(LedgerDataCache(store: ledger.store)))
        guard try ledger.deleteRecord(id: rule.id, journal: "rule remove") else { throw CommandFailure(.failure, "Error: not_found: no rule \(rule.label)") }
        console.err("Removed rule \(rule.label).")
    }

    /// `expense rule move ID --before ID2`: only the moved rule's position changes, to one between ID2 and the
    /// rule before it; when those two are adjacent integers the rules are spaced again first (each rule's
    /// position a change of its own, queued and synced like any other, all in one transaction).
    func ruleMove() throws {
        let ledger = try ledger()
        var rules = try Self.importRules(LedgerDataCache(store: ledger.store))
        var moved = try Self.rule(command[ExpenseArguments.ruleId] ?? "", in: rules)
        let target = try Self.rule(command[ExpenseOptions.before] ?? "", in: rules)
        guard moved.id != target.id else { throw usage("A rule cannot move before itself") }
        func neighbours() -> (Int64?, Int64) {
            let others = rules.filter { $0.id != moved.id }
            let index = others.firstIndex { $0.id == target.id } ?? 0
            return (index == 0 ? nil : others[index - 1].position, others[index].position)
        }
        var (low, high) = neighbours()
        var changes: [RecordChange] = []
        if ImportRule.position(between: low, and: high) == nil {
            for (index, rule) in rules.enumerated() {
                var spaced = rule
                spaced.position = ImportRule.positionGap * Int64(index + 1)
                changes.append(.put(.rule, id: spaced.id, fields: spaced.fields))
                rules[index] = spaced
            }
            moved = rules.first { $0.id == moved.id } ?? moved
            (low, high) = neighbours()
        }
        guard let position = ImportRule.position(between: low, and: high) else {
            throw CommandFailure(.failure, "Error: no_room: the rules' positions leave no room; remove and add the rule again")
        }
        moved.position = position
        changes.append(.put(.rule, id: moved.id, fields: moved.fields))
        try ledger.change(changes, journal: "rule move")  // one command: `undo --last` reverts the spacing too
        console.err("Rule \(moved.label) now runs before \(target.label).")
    }

    /// `expense rule apply [--from D] [--to D] [--dry-run]`: prints each expense the rules change and which rules
    /// did; then, without --dry-run, edits each as `expense edit` does.
    func ruleApply() throws {
        let ledger = try ledger()
        let rules = try Self.importRules(LedgerDataCache(store: ledger.store))
        guard !rules.isEmpty else { throw CommandFailure(.failure, "Error: no_rules: the ledger has no rules; add one with `expense rule add`") }
        let filter = ExpenseFilter(from: try command.value(ExpenseOptions.from), to: try command.value(ExpenseOptions.to))
        let members = MemberDirectory(members: try memberNames(ledger).members)
        var changes: [(before: Expense, outcome: RuleOutcome)] = []
        try ledger.forEach(filter) { expense in
            let outcome = try ImportRule.run(rules, on: expense)
            if !outcome.changedBy.isEmpty { changes.append((expense, outcome)) }
        }
        for change in changes {
            console.out(RuleDisplay.preview(change.before, change.outcome, names: members) + "\n")
        }
        let dryRun = command[ExpenseOptions.dryRun]
        if !dryRun {
            for change in changes {
                guard let record = try ledger.store.record(id: change.before.id) else { continue }
                try ledger.journaledEdit(record, changes: change.outcome.expense.draft)  // as `expense edit`: undone by `undo --last`
            }
        }
        let count = changes.count
        console.out("\(count) expense\(count == 1 ? "" : "s") \(dryRun ? "would be " : "")changed by rules\n")
        if dryRun { console.err("Dry run: nothing stored.") }
    }

    /// The rules to run on an import's rows: none with --no-rules; the ledger's (refused when it has none) with
    /// --rules; else the ledger's, if any (none on a cache that keeps no records of other kinds).
    func importRulesToRun(_ ledger: LocalLedger) throws -> [ImportRule] {
        if command[ExpenseOptions.noRules] { return [] }
        let rules = (try? LedgerDataCache(store: ledger.store)).flatMap { try? Self.importRules($0) } ?? []
        if command[ExpenseOptions.rules] && rules.isEmpty {
            throw CommandFailure(.failure, "Error: no_rules: --rules, but the ledger has no rules; add one with `expense rule add`")
        }
        return rules
    }

    /// The ledger's rules in the order they run.
    static func importRules(_ data: LedgerDataCache) throws -> [ImportRule] {
        ImportRule.ordered(try data.records(.rule).compactMap { try? LedgerDataValidator.importRule(id: $0.id, fields: $0.fields) })
    }

    /// The rule whose id starts with `prefix` (at least 4 characters, any case).
    static func rule(_ prefix: String, in rules: [ImportRule]) throws -> ImportRule {
        let wanted = prefix.lowercased()
        guard wanted.count >= 4 else {
            throw CommandFailure(.failure, "Error: id_prefix_too_short: give at least 4 characters of the rule's id, not '\(DisplayText.escaped(prefix))'")
        }
        let found = rules.filter { UUIDText.lowercased($0.id).hasPrefix(wanted) }
        guard found.count == 1 else {
            throw CommandFailure(.failure, found.isEmpty
                ? "Error: unknown_id: no rule's id starts with '\(DisplayText.escaped(prefix))'; see `expense rule list`"
                : "Error: ambiguous_id: '\(DisplayText.escaped(prefix))' starts the ids of \(found.count) rules; give more characters")
        }
        return found[0]
    }

    /// `FIELD~REGEX` or `FIELD=TEXT`: split at the first `~` or `=`, whichever comes first.
    static func condition(_ text: String) throws -> RuleCondition {
        let usage = "--match takes FIELD~REGEX or FIELD=TEXT, FIELD being text, note, category or amount"
        guard let mark = text.firstIndex(where: { $0 == "~" || $0 == "=" }),
              let field = RuleField(rawValue: String(text[..<mark])) else {
            throw UsageError("\(usage); not '\(DisplayText.escaped(text))'", path: ["rule", "add"])
        }
        let value = String(text[text.index(after: mark)...])
        if text[mark] == "=" { return .equals(field, value) }
        do throws(PatternError) { return .matches(field, try Pattern(value)) } catch { throw LedgerDataError.invalidRegex(error) }
    }

    private func ruleAmount(_ text: String, option: String) throws -> RuleAmount {
        guard let amount = RuleAmount(text) else { throw usage("\(option) takes a plain decimal such as 12.50, not '\(DisplayText.escaped(text))'") }
        return amount
    }

    private static func jsonObject(_ fields: LedgerDataFields) -> [String: JSONValue] {
        fields.mapValues { value -> JSONValue in
            var writer = JSONWriter()
            LedgerDataJSON.write(value, to: &writer)
            return (try? JSONValue(parsing: writer.bytes)) ?? .null
        }
    }
}
