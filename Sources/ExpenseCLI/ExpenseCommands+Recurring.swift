import CommandLineKit

extension ExpenseCommands {
    static let recurring = CommandSpec(
        name: "recurring", abstract: "Rules for expenses that repeat (rent, subscriptions), synced like budgets.",
        discussion: """
          Occurrence n of a rule falls on start + n × the interval, computed from the start, never from the previous
          occurrence: a monthly rule from Jan 31 gives Feb 28 with --month-end clamp (the default) or no February
          occurrence with skip, then Mar 31. Rules are synced to every machine (Protocol.md section 10). This
          version keeps and previews rules; it does not yet create their expenses (see README).
        """,
        subcommands: [
            CommandSpec(name: "add", abstract: "Add a rule; prints its id.",
                        arguments: [ArgumentSpec("amount", help: "The amount of each occurrence, such as 950.00."),
                                    ArgumentSpec("category", help: "The category, such as rent.")],
                        options: [.option("every", value: "N unit", help: "The interval: a unit (day, week, month, year) or N and a unit, such as '2 weeks'.", required: true),
                                  .option("start", value: "date", help: "The first occurrence.", required: true),
                                  .option("until", value: "date", help: "The last day an occurrence may fall on."),
                                  .option("count", value: "N", help: "How many occurrences there are (1 to 100000)."),
                                  .option("note", value: "text", help: "The note of each occurrence."),
                                  .option("currency", value: "code", help: "An ISO 4217 code (default: the configured currency)."),
                                  .option("month-end", value: "clamp|skip", help: "In a month without the day: its last day (clamp, the default) or none (skip).")]),
            CommandSpec(name: "list", abstract: "List the rules.",
                        options: [.flag("json", help: "Print a JSON array (amounts as integers in minor units).")]),
            CommandSpec(name: "remove", abstract: "Remove a rule (no more occurrences).",
                        arguments: [ArgumentSpec("id", help: "The rule's id or a unique prefix of at least 4 characters.")]),
            CommandSpec(name: "skip", abstract: "Make one occurrence never exist.",
                        arguments: [ArgumentSpec("id", help: "The rule's id or a unique prefix of at least 4 characters."),
                                    ArgumentSpec("date", help: "The occurrence's day, YYYY-MM-DD.")]),
            CommandSpec(name: "preview", abstract: "The occurrences due up to a day (nothing is written).",
                        options: [.option("until", value: "date", help: "The last day (default: today)."),
                                  .flag("json", help: "Print a JSON array (amounts as integers in minor units).")]),
        ])
}
