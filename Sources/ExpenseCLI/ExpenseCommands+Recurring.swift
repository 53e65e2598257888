import CommandLineKit

extension ExpenseCommands {
    static let recurringRules = KindCommands(spec: recurring, runs: [
        "add": { try $0.recurringAdd() }, "list": { try $0.recurringList() }, "remove": { try $0.recurringRemove() },
        "skip": { try $0.recurringSkip() }, "keep-both": { try $0.recurringKeepBoth() }, "merge": { try $0.recurringMerge() },
        "preview": { try $0.recurringPreview() }, "run": { try $0.recurringRun() },
    ])

    static let recurring = CommandSpec(
        name: "recurring", abstract: "Rules for expenses that repeat (rent, subscriptions), synced like budgets.",
        discussion: """
          Occurrence n of a rule falls on start + n × the interval, computed from the start, never from the previous
          occurrence: a monthly rule from Jan 31 gives Feb 28 with --month-end clamp (the default) or no February
          occurrence with skip, then Mar 31. Rules are synced to every machine (Protocol.md section 10).
          Occurrences up to and including today (in the ledger's time zone, `config set timezone`) become ordinary
          expenses, once, on whichever machine reads or syncs first, offline included: every command that reads
          (list, summary, stats, status, budget status, report, export) or syncs creates them, and `recurring run`
          does it alone. Each occurrence's id is derived from the ledger, the rule and the date, so two machines
          make the same expense; one someone edited or deleted stays so. At most 100 occurrences of one rule are
          created per command (oldest first; standard error says when more are due). A cache that has never synced
          creates them too; its first sync gives them the ids every machine of the ledger derives.
          Rules with the same amount, currency, category, interval and start are possible twins (one charge
          entered twice, on two machines or twice on one): `add` warns, `list`, `status` and `conflicts` show them,
          and only the one entered first makes occurrences (the others' are held, even those made before a sync
          showed the twin) until `keep-both` or `merge` settles it.
        """,
        subcommands: [
            CommandSpec(name: "add", abstract: "Add a rule; prints its id.",
                        arguments: [ExpenseArguments.amount.help("The amount of each occurrence, such as 950.00.").spec,
                                    ExpenseArguments.category.help("The category, such as rent.").spec],
                        options: [ExpenseOptions.every.asRequired().spec,
                                  ExpenseOptions.start.help("The first occurrence.").asRequired().spec,
                                  ExpenseOptions.until.help("The last day an occurrence may fall on.").spec,
                                  ExpenseOptions.count.spec,
                                  ExpenseFieldOptions.note.help("The note of each occurrence.").spec,
                                  ExpenseFieldOptions.currency.help("An ISO 4217 code (default: the configured currency).").spec,
                                  ExpenseOptions.monthEnd.spec]),
            CommandSpec(name: "list", abstract: "List the rules.",
                        options: [ExpenseOptions.json.help("Print a JSON array (amounts as integers in minor units).").spec]),
            CommandSpec(name: "remove", abstract: "Remove a rule (no more occurrences).",
                        arguments: [ExpenseArguments.id.help("The rule's id or a unique prefix of at least 4 characters.").spec]),
            CommandSpec(name: "skip", abstract: "Make one occurrence never exist.",
                        arguments: [ExpenseArguments.id.help("The rule's id or a unique prefix of at least 4 characters.").spec,
                                    ExpenseArguments.date.spec]),
            CommandSpec(name: "keep-both", abstract: "Two possible twin rules are two charges: both make their occurrences.",
                        arguments: [ExpenseArguments.id.help("One rule's id or a unique prefix of at least 4 characters.").spec,
                                    ExpenseArguments.otherId.spec]),
            CommandSpec(name: "merge", abstract: "Two possible twin rules are one charge: keep the first, remove the other.",
                        discussion: """
                          The other rule is removed, and each of its occurrences on a date the kept rule also charged is
                          deleted (synced like any delete); an occurrence of it on a date the kept rule did not charge stays.
                        """,
                        arguments: [ExpenseArguments.id.help("The rule to keep: its id or a unique prefix of at least 4 characters.").spec,
                                    ExpenseArguments.otherId.help("The rule to remove: its id or a unique prefix of at least 4 characters.").spec]),
            CommandSpec(name: "run", abstract: "Create the occurrences due up to today as expenses; prints them.",
                        options: [ExpenseOptions.json.help("Print a JSON array of the expenses created (amounts as integers in minor units).").spec]),
            CommandSpec(name: "preview", abstract: "The occurrences due up to a day (nothing is written).",
                        options: [ExpenseOptions.until.help("The last day (default: today).").spec,
                                  ExpenseOptions.json.help("Print a JSON array (amounts as integers in minor units).").spec]),
        ])
}
