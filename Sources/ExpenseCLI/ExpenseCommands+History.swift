import CommandLineKit

/// `history`, `log` and `undo` (docs/usage.md, "History and undo"; Protocol.md §5.8).
extension ExpenseCommands {
    static let history = CommandSpec(
        name: "history", abstract: "Show every version of an expense, field by field, with who changed it and when.",
        discussion: """
          Asks the daemon, which keeps an entry for every applied change (who: the name of the token that
          pushed it, `expensed token add NAME`). When the daemon cannot be reached, shows what this cache knows (the last synced version,
          local changes not yet synced and this machine's own commands) and says so. Times are UTC.
        """,
        arguments: [ExpenseArguments.id.help("The expense's id or a unique prefix of at least 4 characters (deleted ones too).").spec],
        options: [ExpenseOptions.json.help("Print the daemon's entries as a JSON array (money as {amount, currency} in minor units).").spec])

    static let log = CommandSpec(
        name: "log", abstract: "Show the ledger's activity: every applied change (expenses, budgets, rules, settings), oldest first.",
        discussion: """
          Asks the daemon. Without one (no remote set, or unreachable), shows this machine's own recent commands
          and says so.
        """,
        options: [ExpenseOptions.since.help("Only changes made on or after this day (UTC), YYYY-MM-DD.").spec,
                  ExpenseOptions.byToken.spec,
                  ExpenseOptions.json.spec])

    static let undo = CommandSpec(
        name: "undo", abstract: "Revert an expense's last change, or this machine's last command, as a new local change.",
        discussion: """
          A create becomes a delete, a delete a restore, an edit the edit back. The undo is an ordinary local
          change: the next `expense sync` sends it based on the version the reverted change made, so if someone
          has since changed the same fields, it is a conflict (see `expense conflicts`), never a silent overwrite.
          With an id, the last change is asked from the daemon (any machine's), unless this machine has a change of
          that expense not synced yet, which is reverted locally. --last reverts this machine's last command
          (add, edit, delete, import, rule add|move|remove, budget set|remove, recurring add|remove, rate
          set|remove, settle record|remove) not already undone; repeated, the one before. An import is undone as
          a whole (every row it created is deleted; a row changed since is a conflict); only the latest import can
          be. A command on rules, budgets and the other records is undone only while each record is as it left
          it (else `changed_since`, exit 1, nothing queued). ID may name a budget, rule or other record too.
        """,
        arguments: [ExpenseArguments.id.asOptional().spec],
        options: [ExpenseOptions.last.spec])
}
