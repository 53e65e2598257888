import CommandLineKit
import ExpenseCore

extension ExpenseCommands {
    static let rules = KindCommands(spec: rule, runs: [
        "add": { try $0.ruleAdd() }, "list": { try $0.ruleList() }, "remove": { try $0.ruleRemove() },
        "move": { try $0.ruleMove() }, "apply": { try $0.ruleApply() },
    ])

    static let rule = CommandSpec(
        name: "rule", abstract: "Rules that categorise imported and existing expenses.",
        discussion: """
          Rules are synced like budgets (Protocol.md section 10.8) and run in their order, each seeing what the
          ones before it did; the last assignment of a field wins. `import` runs them on every row when the
          ledger has any (--no-rules to skip them), and `rule apply` on the expenses already stored.

          A condition: --match FIELD~REGEX (the regular expression matches somewhere in the field) or
          --match FIELD=TEXT (the field equals TEXT, ignoring case), FIELD being text (the bank's original text:
          the note as the file gave it, before any rule), note, category or amount (written 12.50);
          --amount-from/--amount-to and --date-from/--date-to (each bound inclusive). All conditions must hold,
          or one with --any. A regular expression is matched in time linear in the text: literals, ., [a-z],
          [^...], \\d \\w \\s, ^ $, ( ), |, * + ? and {m,n}; case is ignored unless it starts with (?-i); at
          most 256 characters and 2000 compiled states. A bad one is refused naming its position (invalid_regex).
        """,
        subcommands: [
            CommandSpec(name: "add", abstract: "Add a rule after the others; prints its id.",
                        discussion: """
                          Give at least one condition and one action. --part CATEGORY=AMOUNT books that much of the
                          expense in CATEGORY (replacing a part it has there); the expense's own category keeps the rest.
                        """,
                        options: [ExpenseOptions.ruleName.spec, ExpenseOptions.ruleMatch.spec, ExpenseOptions.amountFrom.spec,
                                  ExpenseOptions.amountTo.spec, ExpenseOptions.dateFrom.spec, ExpenseOptions.dateTo.spec,
                                  ExpenseOptions.matchAny.spec, ExpenseOptions.setCategory.spec, ExpenseOptions.addTag.spec,
                                  ExpenseOptions.setNote.spec, ExpenseOptions.setPaidBy.spec, ExpenseOptions.setSplit.spec,
                                  ExpenseOptions.rulePart.spec]),
            CommandSpec(name: "list", abstract: "List the rules in the order they run.",
                        options: [ExpenseOptions.json.help(
                            "Print a JSON array of {id, name, position, match, conditions, actions} in the order they run.").spec]),
            CommandSpec(name: "remove", abstract: "Remove a rule.", arguments: [ExpenseArguments.ruleId.spec]),
            CommandSpec(name: "move", abstract: "Move a rule to run just before another.",
                        arguments: [ExpenseArguments.ruleId.spec],
                        options: [ExpenseOptions.before.asRequired().spec]),
            CommandSpec(name: "apply", abstract: "Run the rules on the expenses stored; shows each change first.",
                        discussion: """
                          Prints each expense a rule changes, what changes and which rules changed it, then edits
                          them as `expense edit` does (queued, synced at the next sync). --dry-run only prints.
                        """,
                        options: [ExpenseOptions.from.spec, ExpenseOptions.to.spec,
                                  ExpenseOptions.dryRun.help("Print what the rules would change, without storing anything.").spec]),
        ])
}

extension ExpenseArguments {
    /// `rule remove|move ID`.
    static let ruleId = Argument("id", help: "The rule's id or a unique prefix of at least 4 characters.")
}

extension ExpenseOptions {
    /// `rule add --name N`.
    static let ruleName = TypedOption<String>.text("name", value: "name", help: "What to call the rule (1 to 64 characters).")
    /// `rule add --match FIELD~REGEX|FIELD=TEXT`, repeatable.
    static let ruleMatch = TypedOption<String>.text(
        "match", value: "condition", help: "FIELD~REGEX or FIELD=TEXT, FIELD being text, note, category or amount (repeatable).")
    /// `rule add --amount-from A`.
    static let amountFrom = TypedOption<String>.text("amount-from", value: "amount", help: "Only amounts of at least this, such as 10.")
    /// `rule add --amount-to B`.
    static let amountTo = TypedOption<String>.text("amount-to", value: "amount", help: "Only amounts of at most this, such as 49.99.")
    /// `rule add --date-from D`.
    static let dateFrom = day("date-from", help: "Only expenses on or after this day.")
    /// `rule add --date-to D`.
    static let dateTo = day("date-to", help: "Only expenses on or before this day.")
    /// `rule add --any`.
    static let matchAny = Flag("any", help: "One condition is enough (default: all must hold).")
    /// `rule add --set-category C`.
    static let setCategory = TypedOption<String>.text("set-category", value: "category", help: "Set the category.")
    /// `rule add --add-tag T`: the expense gets the tag (once; tags are a set).
    static let addTag = TypedOption<String>.text("add-tag", value: "tag", help: "Add a tag to the expense (repeatable).")
    /// `rule add --set-note TEXT`.
    static let setNote = TypedOption<String>.text("set-note", value: "text", help: "Set the note.")
    /// `rule add --set-paid-by NAME`.
    static let setPaidBy = TypedOption<String>.text("set-paid-by", value: "name", help: "Set who paid (a member's name).")
    /// `rule add --set-split SPEC`.
    static let setSplit = TypedOption<String>.text(
        "set-split", value: "split", help: "Set the split, as for `add --split` (shares, percent or equal; not exact).")
    /// `rule add --part CATEGORY=AMOUNT` (kept for a version with parts; refused for now).
    static let rulePart = TypedOption<String>.text("part", value: "category=amount", help: "Book part of the amount in a category (repeatable).")
    /// `import --rules`: run the ledger's rules, refused when it has none.
    static let rules = Flag("rules", help: "Run the ledger's rules on the rows (the default when it has any; refused when it has none).")
    /// `import --no-rules`.
    static let noRules = Flag("no-rules", help: "Do not run the ledger's rules on the rows.")
    /// `rule move ID --before ID2`.
    static let before = TypedOption<String>.text("before", value: "id", help: "The rule to run just after the moved one.")
}
