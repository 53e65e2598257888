import ExpenseCore

/// How `rule list`, `rule apply` and `import --dry-run` write rules and what they did, in one line each.
enum RuleDisplay {
    /// `text~rewe and amount 10..50`: the conditions as typed, joined by `and` (`or` with `--any`).
    static func conditions(_ rule: ImportRule) -> String {
        rule.conditions.map { condition in
            switch condition {
            case .matches(let field, let pattern): "\(field.rawValue)~\(DisplayText.escaped(pattern.source))"
            case .equals(let field, let text): "\(field.rawValue)=\(DisplayText.escaped(text))"
            case .amount(let from, let to): "amount \(from?.description ?? "")..\(to?.description ?? "")"
            case .date(let from, let to): "date \(from?.description ?? "")..\(to?.description ?? "")"
            }
        }.joined(separator: rule.matchesAny ? " or " : " and ")
    }

    /// `category=groceries, paid-by=alice`: the actions, members by name.
    static func actions(_ rule: ImportRule, names: MemberDirectory) -> String {
        rule.actions.map { action in
            switch action {
            case .setCategory(let category): "category=\(DisplayText.quoted(category))"
            case .addTag(let tag): "tag+=\(DisplayText.quoted(tag))"
            case .setNote(let note): "note=\(DisplayText.quoted(note))"
            case .setPaidBy(let member): "paid-by=\(DisplayText.quoted(names.name(member)))"
            // A rule's split is never exact, so the currency, which only exact amounts are written in, is not read.
            case .setSplit(let split): "split=\(split.typedText(currency: .usd, name: names.name))"
            case .part(let category, let amount): "part \(DisplayText.quoted(category))=\(amount)"
            }
        }.joined(separator: ", ")
    }

    /// `2026-11-28  23.45 EUR  'REWE SAGT DANKE'  category 'food' -> 'groceries'  by 'supermarket'`: one
    /// expense, what the rules changed and which rules changed it (the id's first 8 characters lead for
    /// `rule apply`; `import` puts the line number there).
    static func preview(_ before: Expense, _ outcome: RuleOutcome, names: MemberDirectory, lead: String? = nil) -> String {
        let after = outcome.expense
        var changes: [String] = []
        if !ExactText.same(before.category, after.category) {
            changes.append("category \(DisplayText.quoted(before.category)) -> \(DisplayText.quoted(after.category))")
        }
        if !ExactText.same(before.note, after.note) { changes.append("note \(DisplayText.quoted(before.note)) -> \(DisplayText.quoted(after.note))") }
        if before.paidBy != after.paidBy {
            changes.append("paid by \(before.paidBy.map { DisplayText.quoted(names.name($0)) } ?? "nobody") -> "
                           + (after.paidBy.map { DisplayText.quoted(names.name($0)) } ?? "nobody"))
        }
        if before.split != after.split {
            func shown(_ split: SplitSpec?) -> String { split.map { $0.typedText(currency: before.currency, name: names.name) } ?? "none" }
            changes.append("split \(shown(before.split)) -> \(shown(after.split))")
        }
        // Any other field a rule may change (tags), shown as conflicts show it: no field a rule sets goes unshown.
        for field in ExpenseField.values where ![.category, .note, .paidBy, .split].contains(field) && !field.same(before, after) {
            changes.append("\(field.rawValue) \(DisplayText.quoted(field.text(of: before, names: names.name))) -> "
                           + DisplayText.quoted(field.text(of: after, names: names.name)))
        }
        let head = (lead ?? String(before.idString.prefix(8))) + "  \(before.date)  "
            + Money.format(before.amount, currency: before.currency, includeCode: true) + "  \(DisplayText.quoted(before.note))"
        guard !outcome.changedBy.isEmpty else { return head + "  no rule" }
        return head + "  " + changes.joined(separator: "; ") + "  by " + outcome.changedBy.map(\.label).joined(separator: ", ")
    }
}
