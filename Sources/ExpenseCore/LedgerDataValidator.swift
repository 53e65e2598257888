import FoundationEssentials

/// The one validation of budgets, recurring rules and settings, called by the client and the daemon alike
/// (Protocol.md §10), as ``ExpenseValidator`` is for expenses; the values they share with expenses (amount,
/// currency, category, date, note) go through ``ExpenseValidator`` itself.
///
/// Each kind's fields, as on the wire:
/// - budget: `category` or `tag` (exactly one: a tag as an expense's, ``ExpenseTags/problem(with:)``), `currency`, `amounts` (`[{"from":"YYYY-MM-DD","amount":N}, …]`, non-empty, `from`
///   strictly increasing), `period` (`week|month|quarter|year`), `start` (a date), `rollover`
///   (`none|positive|full`); the id must be ``Budget/id(target:currency:)``.
/// - recurring: `amount`, `currency`, `category`, `note`, `every` (1 … 1000), `unit` (`day|week|month|year`),
///   `start`, optional `until` (a date) or `count` (1 … 100000, not both), `monthEnd` (`clamp|skip`), `skips`
///   (a list of dates), optional `distinctFrom` (a list of at most 100 rule ids: rules that look the same and
///   are to be charged too), optional `created` (when it was entered, seconds since 1970).
/// - setting: `name` (`timezone`) and `value` (an IANA zone); the id must be ``LedgerSetting/id(_:)``.
/// - member: `name` (trimmed, 1 to 64 characters, at most 256 bytes, no control characters; unique among the
///   ledger's members, which the daemon checks across records: `member_exists`) and `status` (`active|left`).
/// - transfer: `from` and `to` (two different members' ids; the daemon checks they are members: `unknown_member`),
///   `amount`, `currency`, `date`.
/// - rate: `date`, `from` and `to` (two different currency codes), `rate` (``Rate``'s canonical text: 1 `from` =
///   `rate` `to` on `date`); the id must be ``ExchangeRate/id(date:from:to:)``.
/// - rule: optional `name` (a category's rule), `position` (an integer), `match` (`all|any`), `conditions` and
///   `actions` (see ``ImportRule``); each regular expression compiles (``Pattern``, `invalid_regex`).
public enum LedgerDataValidator {
    /// The fields of each kind, in the order they are checked.
    public static func fieldNames(_ kind: RecordKind) -> [String] {
        switch kind {
        case .expense: ExpenseField.allCases.filter { $0 != .id }.map(\.rawValue)
        case .budget: ["category", "tag", "currency", "amounts", "period", "start", "rollover"]
        case .recurring: ["amount", "currency", "category", "note", "every", "unit", "start", "until", "count", "monthEnd", "skips",
                          "distinctFrom", "created"]
        case .setting: ["name", "value"]
        case .member: ["name", "status"]
        case .transfer: ["from", "to", "amount", "currency", "date"]
        case .rate: ["date", "from", "to", "rate"]
        case .rule: ["name", "position", "match", "conditions", "actions"]
        }
    }

    /// The field whose version a field shares for conflicts: money is one field (`amount` and `currency` of a
    /// rule), as for expenses (Protocol.md §7.4); a budget's money history is its `amounts`.
    public static func conflictField(_ field: String) -> String {
        field == "amount" || field == "currency" ? "money" : field
    }

    /// Validates a whole record of `kind` with `id`: unknown keys first (the first in byte order), then each
    /// field in ``fieldNames(_:)`` order.
    /// - Returns: the fields as stored (category trimmed, `skips` sorted and deduplicated).
    /// - Throws: ``LedgerDataError``.
    public static func validate(kind: RecordKind, id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> LedgerDataFields {
        switch kind {
        case .expense: throw .unknownKind(kind.rawValue)
        case .budget: return try budget(id: id, fields: fields).fields
        case .recurring: return try recurring(id: id, fields: fields).fields
        case .setting: return try setting(id: id, fields: fields).fields
        case .member: return try member(id: id, fields: fields).fields
        case .transfer: return try transfer(id: id, fields: fields).fields
        case .rate: return try rate(id: id, fields: fields).fields
        case .rule: return try importRule(id: id, fields: fields).fields
        }
    }

    /// A budget from its fields.
    public static func budget(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> Budget {
        let reader = try Reader(fields, kind: .budget)
        let target: BudgetTarget
        switch (fields["category"], fields["tag"]) {
        case (nil, nil): throw .missingField("category")
        case (_?, _?): throw .invalidValue(field: "tag", detail: "a budget has a category or a tag, not both")
        case (_?, nil): target = .category(try reader.category("category"))
        case (nil, _?): target = .tag(try reader.tag("tag"))
        }
        let currency = try reader.currency("currency")
        guard case .list(let entries)? = fields["amounts"] else {
            throw fields["amounts"] == nil ? .missingField("amounts") : .invalidValue(field: "amounts", detail: "expected a list")
        }
        var amounts: [BudgetAmount] = []
        for entry in entries {
            guard case .object(let members) = entry, members.count == 2, case .text(let fromText)? = members["from"],
                  case .integer(let amount)? = members["amount"], let from = CalendarDay(fromText) else {
                throw .invalidValue(field: "amounts", detail: #"each entry must be {"from":"YYYY-MM-DD","amount":N}"#)
            }
            do { try Money.checkRange(amount) } catch let error as ValidationError { throw .value(error, field: "amounts") } catch {
                throw .invalidValue(field: "amounts", detail: "\(error)")
            }
            if let last = amounts.last, last.from >= from {
                throw .invalidValue(field: "amounts", detail: "the from days must increase")
            }
            amounts.append(BudgetAmount(from: from, amount: amount))
        }
        guard !amounts.isEmpty else { throw .invalidValue(field: "amounts", detail: "at least one amount") }
        let period: BudgetPeriodLength = try reader.choice("period")
        let start = try reader.date("start")
        let rollover: BudgetRollover = try reader.choice("rollover")
        guard id == Budget.id(target: target, currency: currency) else { throw .budgetIdMismatch }
        return Budget(target: target, currency: currency, period: period, start: start, rollover: rollover, amounts: amounts)
    }

    /// A recurring rule from its fields.
    public static func recurring(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> RecurringRule {
        let reader = try Reader(fields, kind: .recurring)
        let amount = try reader.integer("amount")
        do { try Money.checkRange(amount) } catch let error as ValidationError { throw .value(error, field: "amount") } catch {
            throw .invalidValue(field: "amount", detail: "\(error)")
        }
        let currency = try reader.currency("currency")
        let category = try reader.category("category")
        let note = try reader.note("note")
        let every = try reader.integer("every")
        guard (1...Int64(RecurringRule.maximumInterval)).contains(every) else {
            throw .invalidValue(field: "every", detail: "from 1 to \(RecurringRule.maximumInterval)")
        }
        let unit: RecurrenceUnit = try reader.choice("unit")
        let start = try reader.date("start")
        var end = RecurrenceEnd.never
        if fields["until"] != nil { end = .until(try reader.date("until")) }
        if fields["count"] != nil {
            guard case .never = end else { throw .invalidValue(field: "count", detail: "give until or count, not both") }
            let count = try reader.integer("count")
            guard (1...100_000).contains(count) else { throw .invalidValue(field: "count", detail: "from 1 to 100000") }
            end = .count(Int(count))
        }
        if case .until(let until) = end, until < start { throw .invalidValue(field: "until", detail: "before the start") }
        let monthEnd: MonthEndPolicy = try reader.choice("monthEnd")
        var skips: Set<CalendarDay> = []
        switch fields["skips"] {
        case nil: break
        case .list(let values)?:
            for value in values {
                guard case .text(let text) = value, let day = CalendarDay(text) else {
                    throw .invalidValue(field: "skips", detail: "expected a list of YYYY-MM-DD days")
                }
                skips.insert(day)
            }
        default: throw .invalidValue(field: "skips", detail: "expected a list of YYYY-MM-DD days")
        }
        var distinctFrom: Set<UUID> = []
        switch fields["distinctFrom"] {
        case nil: break
        case .list(let values)? where values.count <= RecurringRule.maximumDistinct:
            for value in values {
                guard case .text(let text) = value, let other = UUIDText.parse(text), other != id else {
                    throw .invalidValue(field: "distinctFrom", detail: "expected a list of other rules' ids")
                }
                distinctFrom.insert(other)
            }
        default:
            throw .invalidValue(field: "distinctFrom", detail: "expected a list of at most \(RecurringRule.maximumDistinct) rule ids")
        }
        var created: Int64?
        if fields["created"] != nil {
            created = try reader.integer("created")
            guard let seconds = created, seconds >= 0 else { throw .invalidValue(field: "created", detail: "seconds since 1970, not negative") }
        }
        return RecurringRule(id: id, amount: amount, currency: currency, category: category, note: note, every: Int(every),
                             unit: unit, start: start, end: end, monthEnd: monthEnd, skips: skips, distinctFrom: distinctFrom,
                             created: created)
    }

    /// A setting from its fields.
    public static func setting(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> LedgerSetting {
        let reader = try Reader(fields, kind: .setting)
        let name: LedgerSetting.Name = try reader.choice("name")
        let value = try reader.text("value")
        switch name {
        case .timezone:
            guard LedgerSetting.timeZone(value) != nil else {
                throw .invalidValue(field: "value", detail: "not a time zone identifier such as Europe/Berlin")
            }
        }
        guard id == LedgerSetting.id(name) else { throw .invalidValue(field: "id", detail: "a setting's id is derived from its name") }
        return LedgerSetting(name: name, value: value)
    }

    /// A member from its fields.
    public static func member(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> Member {
        let reader = try Reader(fields, kind: .member)
        let name = try memberName(reader.text("name"))
        let status: Member.Status = try reader.choice("status")
        return Member(id: id, name: name, status: status)
    }

    /// A transfer from its fields.
    public static func transfer(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> Transfer {
        let reader = try Reader(fields, kind: .transfer)
        let from = try reader.memberId("from")
        let to = try reader.memberId("to")
        guard from != to else { throw .invalidValue(field: "to", detail: "a member cannot pay themselves back") }
        let amount = try reader.integer("amount")
        do { try Money.checkRange(amount) } catch let error as ValidationError { throw .value(error, field: "amount") } catch {
            throw .invalidValue(field: "amount", detail: "\(error)")
        }
        return Transfer(id: id, from: from, to: to, amount: amount, currency: try reader.currency("currency"), date: try reader.date("date"))
    }

    /// An exchange rate from its fields: a valid date, two different currencies, a ``Rate`` (stored in its
    /// canonical text, so `1.50` and `1.5` are the same value), and the id derived from the date and the pair.
    public static func rate(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> ExchangeRate {
        let reader = try Reader(fields, kind: .rate)
        let date = try reader.date("date")
        let from = try reader.currency("from")
        let to = try reader.currency("to")
        guard from != to else { throw .invalidValue(field: "to", detail: "the same currency as from; a rate is between two currencies") }
        let text = try reader.text("rate")
        let value: Rate
        do throws(RateError) { value = try Rate(text) } catch { throw .invalidValue(field: "rate", detail: error.message) }
        let rate = ExchangeRate(date: date, from: from, to: to, rate: value)
        guard rate.id == id else { throw .rateIdMismatch }
        return rate
    }

    /// An import rule from its fields: each condition's regular expression compiled, each action's value
    /// checked by the expense's own rule (a tag 1 to 32 characters, a split never exact).
    public static func importRule(id: UUID, fields: LedgerDataFields) throws(LedgerDataError) -> ImportRule {
        try ImportRule(id: id, checking: fields)
    }

    /// A member's name as stored: trimmed, 1 to 64 characters and 256 bytes, no control characters (a category's
    /// rule, with the name's own messages), and one a split can name: no `,`, `=` or `:`, and not `all`.
    public static func memberName(_ text: String) throws(LedgerDataError) -> String {
        do {
            let name = try ExpenseValidator.validateCategory(text)
            if name.contains(where: { $0 == "," || $0 == "=" || $0 == ":" }) || ExactText.same(name, "all") {
                throw LedgerDataError.invalidValue(field: "name", detail: "no ',', '=' or ':', and not 'all' (splits use them)")
            }
            return name
        } catch let error as LedgerDataError {
            throw error
        } catch ValidationError.emptyCategory {
            throw .invalidValue(field: "name", detail: "the name is empty; give 1 to \(Member.maximumNameLength) characters")
        } catch ValidationError.categoryTooLong(let limit) {
            throw .invalidValue(field: "name", detail: limit == .characters
                ? "the name is longer than \(Member.maximumNameLength) characters"
                : "the name is longer than \(ExpenseRules.maximumCategoryBytes) bytes of UTF-8")
        } catch {
            throw .invalidValue(field: "name", detail: "the name contains a control character")
        }
    }

    /// Typed reads of one record's fields.
    private struct Reader {
        let fields: LedgerDataFields

        init(_ fields: LedgerDataFields, kind: RecordKind) throws(LedgerDataError) {
            let known = Set(LedgerDataValidator.fieldNames(kind))
            if let unknown = fields.keys.filter({ !known.contains($0) }).sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }).first {
                throw .unknownField(unknown)
            }
            self.fields = fields
        }

        func text(_ name: String) throws(LedgerDataError) -> String {
            guard let value = fields[name] else { throw .missingField(name) }
            guard case .text(let text) = value else { throw .invalidValue(field: name, detail: "expected a string") }
            return text
        }

        /// A member's id, in lower case as stored.
        func memberId(_ name: String) throws(LedgerDataError) -> UUID {
            let raw = try text(name)
            guard let id = UUIDText.parse(raw), UUIDText.lowercased(id) == raw else {
                throw .invalidValue(field: name, detail: "expected a member's id in lower case")
            }
            return id
        }

        func integer(_ name: String) throws(LedgerDataError) -> Int64 {
            guard let value = fields[name] else { throw .missingField(name) }
            guard case .integer(let number) = value else { throw .invalidValue(field: name, detail: "expected an integer") }
            return number
        }

        func choice<T: RawRepresentable & CaseIterable>(_ name: String) throws(LedgerDataError) -> T where T.RawValue == String {
            let raw = try text(name)
            guard let value = T(rawValue: raw) else {
                throw .invalidValue(field: name, detail: "expected one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return value
        }

        func date(_ name: String) throws(LedgerDataError) -> CalendarDay {
            let raw = try text(name)
            do { return try ExpenseValidator.validateDate(raw) } catch { throw Self.mapped(error, name) }
        }

        func currency(_ name: String) throws(LedgerDataError) -> Currency {
            let raw = try text(name)
            do { return try ExpenseValidator.validateCurrency(raw) } catch { throw Self.mapped(error, name) }
        }

        func category(_ name: String) throws(LedgerDataError) -> String {
            let raw = try text(name)
            do { return try ExpenseValidator.validateCategory(raw) } catch { throw Self.mapped(error, name) }
        }

        /// A tag, checked by the expense's own rule (``ExpenseTags/problem(with:)``): never trimmed, as on an expense.
        func tag(_ name: String) throws(LedgerDataError) -> String {
            let raw = try text(name)
            if let problem = ExpenseTags.problem(with: raw) { throw .value(.invalidTags(problem), field: name) }
            return raw
        }

        func note(_ name: String) throws(LedgerDataError) -> String {
            guard fields[name] != nil else { return "" }
            let raw = try text(name)
            do { return try ExpenseValidator.validateNote(raw) } catch { throw Self.mapped(error, name) }
        }

        private static func mapped(_ error: any Error, _ field: String) -> LedgerDataError {
            if let error = error as? ValidationError { return .value(error, field: field) }
            return .invalidValue(field: field, detail: "\(error)")
        }
    }
}

extension RecurringRule {
    /// The rule as record fields (``LedgerDataValidator/recurring(id:fields:)`` reads them back).
    public var fields: LedgerDataFields {
        var fields: LedgerDataFields = [
            "amount": .integer(amount), "currency": .text(currency.code), "category": .text(category), "note": .text(note),
            "every": .integer(Int64(every)), "unit": .text(unit.rawValue), "start": .text(start.description),
            "monthEnd": .text(monthEnd.rawValue), "skips": .list(skips.sorted().map { .text($0.description) }),
        ]
        switch end {
        case .never: break
        case .until(let day): fields["until"] = .text(day.description)
        case .count(let count): fields["count"] = .integer(Int64(count))
        }
        if let created { fields["created"] = .integer(created) }
        if !distinctFrom.isEmpty { fields["distinctFrom"] = .list(distinctFrom.map(UUIDText.lowercased).sorted().map { .text($0) }) }
        return fields
    }
}

extension LedgerSetting {
    /// The setting as record fields.
    public var fields: LedgerDataFields { ["name": .text(name.rawValue), "value": .text(value)] }
}
