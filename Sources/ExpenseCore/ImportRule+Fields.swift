import FoundationEssentials

extension ImportRule {
    /// Reads and checks a rule's record fields (the client and the daemon both, through
    /// ``LedgerDataValidator/importRule(id:fields:)``): every regular expression compiled (``Pattern``), every
    /// value an action sets checked by the expense's own rule.
    /// - Throws: ``LedgerDataError``: `invalid_regex` naming the position, `invalid_value` naming the field.
    init(id: UUID, checking fields: LedgerDataFields) throws(LedgerDataError) {
        let known = Set(LedgerDataValidator.fieldNames(.rule))
        if let unknown = fields.keys.filter({ !known.contains($0) }).sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).first {
            throw .unknownField(unknown)
        }
        var name = ""
        switch fields["name"] {
        case nil: break
        case .text(let text)?: name = try Self.checked("name") { try ExpenseValidator.validateCategory(text) }
        default: throw .invalidValue(field: "name", detail: "expected a string")
        }
        guard case .integer(let position)? = fields["position"] else {
            throw fields["position"] == nil ? .missingField("position") : .invalidValue(field: "position", detail: "expected an integer")
        }
        let matchesAny: Bool
        switch fields["match"] {
        case .text("all")?: matchesAny = false
        case .text("any")?: matchesAny = true
        case nil: throw .missingField("match")
        default: throw .invalidValue(field: "match", detail: "expected one of all, any")
        }
        let conditions = try Self.list("conditions", fields, limit: Self.maximumConditions).map(Self.condition)
        let actions = try Self.list("actions", fields, limit: Self.maximumActions).map(Self.action)
        self.init(id: id, name: name, position: position, matchesAny: matchesAny, conditions: conditions, actions: actions)
    }

    private static func list(_ name: String, _ fields: LedgerDataFields, limit: Int) throws(LedgerDataError) -> [LedgerDataFields] {
        guard case .list(let items)? = fields[name] else {
            throw fields[name] == nil ? .missingField(name) : .invalidValue(field: name, detail: "expected a list")
        }
        guard (1...limit).contains(items.count) else { throw .invalidValue(field: name, detail: "from 1 to \(limit) entries") }
        var objects: [LedgerDataFields] = []
        for item in items {
            guard case .object(let members) = item else { throw .invalidValue(field: name, detail: "each entry must be an object") }
            objects.append(members)
        }
        return objects
    }

    private static func condition(_ entry: LedgerDataFields) throws(LedgerDataError) -> RuleCondition {
        let shape = #"each is {"field","regex"|"equals"} or {"field":"amount"|"date","from","to"}"#
        guard case .text(let fieldName)? = entry["field"] else { throw .invalidValue(field: "conditions", detail: shape) }
        func text(_ key: String) throws(LedgerDataError) -> String? {
            switch entry[key] {
            case nil: return nil
            case .text(let value)?: return value
            default: throw .invalidValue(field: "conditions", detail: shape)
            }
        }
        if let regex = try text("regex") {
            guard entry.count == 2, let field = RuleField(rawValue: fieldName) else { throw .invalidValue(field: "conditions", detail: shape) }
            do throws(PatternError) { return .matches(field, try Pattern(regex)) } catch { throw .invalidRegex(error) }
        }
        if let equals = try text("equals") {
            guard entry.count == 2, let field = RuleField(rawValue: fieldName) else { throw .invalidValue(field: "conditions", detail: shape) }
            guard equals.unicodeScalars.count <= ExpenseRules.maximumNoteLength * 4, !equals.isEmpty else {
                throw .invalidValue(field: "conditions", detail: "a text to compare is 1 to \(ExpenseRules.maximumNoteLength) characters")
            }
            if field == .amount, RuleAmount(equals) == nil {
                throw .invalidValue(field: "conditions", detail: "an amount is a plain decimal such as 12.50")
            }
            return .equals(field, equals)
        }
        let from = try text("from"), to = try text("to")
        guard from != nil || to != nil, entry.count == 1 + (from == nil ? 0 : 1) + (to == nil ? 0 : 1) else {
            throw .invalidValue(field: "conditions", detail: shape)
        }
        switch fieldName {
        case "amount":
            let low = try from.map { text throws(LedgerDataError) in try amount(text, field: "conditions") }
            let high = try to.map { text throws(LedgerDataError) in try amount(text, field: "conditions") }
            if let low, let high, high < low { throw .invalidValue(field: "conditions", detail: "the amount range ends before it starts") }
            return .amount(from: low, to: high)
        case "date":
            let low = try from.map { text throws(LedgerDataError) in try checked("conditions") { try ExpenseValidator.validateDate(text) } }
            let high = try to.map { text throws(LedgerDataError) in try checked("conditions") { try ExpenseValidator.validateDate(text) } }
            if let low, let high, high < low { throw .invalidValue(field: "conditions", detail: "the date range ends before it starts") }
            return .date(from: low, to: high)
        default: throw .invalidValue(field: "conditions", detail: shape)
        }
    }

    private static func action(_ entry: LedgerDataFields) throws(LedgerDataError) -> RuleAction {
        let shape = #"each is {"action","value"} or {"action":"part","category","amount"}"#
        guard case .text(let name)? = entry["action"] else { throw .invalidValue(field: "actions", detail: shape) }
        if name == "part" {
            guard entry.count == 3, case .text(let category)? = entry["category"], case .text(let amount)? = entry["amount"] else {
                throw .invalidValue(field: "actions", detail: shape)
            }
            let valid = try checked("actions") { try ExpenseValidator.validateCategory(category) }
            return .part(category: valid, amount: try Self.amount(amount, field: "actions"))
        }
        guard entry.count == 2, case .text(let value)? = entry["value"] else { throw .invalidValue(field: "actions", detail: shape) }
        switch name {
        case "setCategory": return .setCategory(try checked("actions") { try ExpenseValidator.validateCategory(value) })
        case "setNote": return .setNote(try checked("actions") { try ExpenseValidator.validateNote(value) })
        case "addTag":
            // The expense's own rule for a tag: a rule can add no tag an expense could not hold.
            if let problem = ExpenseTags.problem(with: value) { throw .invalidValue(field: "actions", detail: problem) }
            return .addTag(value)
        case "setPaidBy":
            guard let member = UUIDText.parse(value), UUIDText.lowercased(member) == value else {
                throw .invalidValue(field: "actions", detail: "setPaidBy names a member's id in lower case")
            }
            return .setPaidBy(member)
        case "setSplit":
            let split: SplitSpec
            do throws(SplitError) { split = try SplitSpec(text: value) } catch { throw .invalidValue(field: "actions", detail: error.message) }
            guard split.method != .exact else {
                throw .invalidValue(field: "actions", detail: "an exact split fits one amount; a rule splits by shares, percent or equally")
            }
            return .setSplit(split)
        default: throw .invalidValue(field: "actions", detail: shape)
        }
    }

    private static func amount(_ text: String, field: String) throws(LedgerDataError) -> RuleAmount {
        guard let amount = RuleAmount(text) else {
            throw .invalidValue(field: field, detail: "an amount is a plain decimal such as 12.50 (at most 4 decimals)")
        }
        return amount
    }

    /// Runs one of ``ExpenseValidator``'s checks, its `ValidationError` reported as the rule's `field`.
    private static func checked<T>(_ field: String, _ body: () throws -> T) throws(LedgerDataError) -> T {
        do { return try body() } catch let error as ValidationError { throw .value(error, field: field) } catch {
            throw .invalidValue(field: field, detail: "\(error)")
        }
    }
}
