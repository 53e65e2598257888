/// What running the rules did to one expense.
public struct RuleOutcome: Hashable, Sendable {
    /// The expense after every rule that held.
    public var expense: Expense
    /// The rules that changed it, in the order they ran (a rule that held but changed nothing is not named).
    public var changedBy: [ImportRule]
}

extension ImportRule {
    /// Runs `rules` in order (``ordered(_:)``) on `expense`, each seeing what the ones before it made; the last
    /// assignment of a field wins. `originalText` is what the `text` field reads (the bank's text as imported).
    /// - Throws: ``ImportRuleError``.
    public static func run(_ rules: [ImportRule], on expense: Expense, originalText: String) throws(ImportRuleError) -> RuleOutcome {
        var outcome = RuleOutcome(expense: expense, changedBy: [])
        for rule in ordered(rules) where rule.holds(for: outcome.expense, originalText: originalText) {
            let changed = try rule.apply(to: outcome.expense)
            if changed != outcome.expense {
                outcome.expense = changed
                outcome.changedBy.append(rule)
            }
        }
        return outcome
    }

    /// ``run(_:on:originalText:)`` with the bank's original text the expense keeps (``Expense/source``, which an
    /// import sets and no edit changes), so a note a rule or a person rewrote does not hide it; an expense without
    /// one (made by `add`, or imported before expenses kept it) offers its note instead. The one place that says
    /// where `text` reads from, for an import's rows and for `rule apply` alike.
    public static func run(_ rules: [ImportRule], on expense: Expense) throws(ImportRuleError) -> RuleOutcome {
        try run(rules, on: expense, originalText: originalText(of: expense))
    }

    /// What the `text` field reads for `expense`: its original text when it has one, else its note.
    public static func originalText(of expense: Expense) -> String {
        expense.source.isEmpty ? expense.note : expense.source
    }

    /// Whether the rule's conditions hold for `expense`: all of them, or one with ``matchesAny``.
    public func holds(for expense: Expense, originalText: String) -> Bool {
        let check = { (condition: RuleCondition) in condition.holds(for: expense, originalText: originalText) }
        return matchesAny ? conditions.contains(where: check) : conditions.allSatisfy(check)
    }

    /// The rule's actions applied to `expense`, the result checked by the expense's own rule.
    ///
    /// The one place an action changes an expense: one `switch` over the actions. A tag is added to the set the
    /// expense has (once: tags are a set, compared by bytes); a part of a category replaces the part the expense
    /// has there, if any, in the expense's currency (an amount with more decimals than the currency has is
    /// refused, never rounded).
    /// - Throws: ``ImportRuleError``.
    public func apply(to expense: Expense) throws(ImportRuleError) -> Expense {
        var draft = expense.draft
        do {
            for action in actions {
                switch action {
                case .setCategory(let category): draft.category = category
                case .setNote(let note): draft.note = note
                case .setPaidBy(let member): draft.paidBy = UUIDText.lowercased(member)
                case .setSplit(let split): draft.split = split.text
                case .addTag(let tag):
                    let tags = draft.tags ?? expense.tags
                    if !ExpenseTags.contains(tags, tag) { draft.tags = tags + [tag] }
                case .part(let category, let amount):
                    guard let minorUnits = amount.minorUnits(in: expense.currency) else {
                        throw ValidationError.invalidParts("\(amount) has more decimals than \(expense.currency.code) has")
                    }
                    let text = draft.parts ?? expense.partsText
                    var parts = text.isEmpty ? [] : try ExpenseParts(text: text).parts
                    parts.removeAll { ExactText.same($0.category, category) }
                    parts.append(ExpenseParts.Part(category: category, amount: minorUnits))
                    draft.parts = try ExpenseParts(parts).text
                }
            }
            return try ExpenseValidator.validate(draft)
        } catch let error as ValidationError {
            throw .invalidResult(rule: label, error)
        } catch {
            throw .invalidResult(rule: label, .invalidAmount("\(error)"))
        }
    }
}

extension RuleCondition {
    /// Whether the condition holds for `expense`; `originalText` is what ``RuleField/text`` reads.
    public func holds(for expense: Expense, originalText: String) -> Bool {
        switch self {
        case .matches(let field, let pattern): return pattern.matches(Self.text(of: field, expense, originalText))
        case .equals(.amount, let text):
            guard let wanted = RuleAmount(text) else { return false }
            return RuleAmount.tenThousandths(of: expense.amount, currency: expense.currency) == wanted.tenThousandths
        case .equals(let field, let text): return RuleText.sameFolded(Self.text(of: field, expense, originalText), text)
        case .amount(let from, let to):
            // An amount too large to name is above every bound.
            let value = RuleAmount.tenThousandths(of: expense.amount, currency: expense.currency) ?? Int64.max
            return (from.map { value >= $0.tenThousandths } ?? true) && (to.map { value <= $0.tenThousandths } ?? true)
        case .date(let from, let to):
            return (from.map { expense.date >= $0 } ?? true) && (to.map { expense.date <= $0 } ?? true)
        }
    }

    private static func text(of field: RuleField, _ expense: Expense, _ originalText: String) -> String {
        switch field {
        case .text: originalText
        case .note: expense.note
        case .category: expense.category
        case .amount: Money.format(expense.amount, currency: expense.currency)
        }
    }
}
