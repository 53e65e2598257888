import CommandLineKit

extension ExpenseCommands {
    static let members = KindCommands(spec: member, runs: [
        "add": { try $0.memberAdd() }, "list": { try $0.memberList() }, "rename": { try $0.memberRename() },
        "leave": { try $0.memberLeave() },
    ])

    static let member = CommandSpec(
        name: "member", abstract: "The people a ledger's shared expenses are split among.",
        discussion: """
          Members are synced like budgets (Protocol.md section 10). A name is 1 to 64 characters, trimmed, and
          unique in the ledger (compared byte for byte): adding or renaming to a name another member has is
          refused here and by the daemon (member_exists, exit 65). Expenses name members by id, so a rename changes
          no expense. A member who leaves stays in past splits and in balances but cannot pay or be in a new split.
          `expense config set me NAME` says who pays by default on this machine.
        """,
        subcommands: [
            CommandSpec(name: "add", abstract: "Add a member; prints their id.",
                        arguments: [ExpenseArguments.memberName.spec]),
            CommandSpec(name: "list", abstract: "List the members (those who left are marked).",
                        options: [ExpenseOptions.json.help("Print a JSON array of {id, name, status}.").spec]),
            CommandSpec(name: "rename", abstract: "Rename a member.",
                        arguments: [ExpenseArguments.memberName.help("The member's name now.").spec,
                                    ExpenseArguments.newMemberName.spec]),
            CommandSpec(name: "leave", abstract: "Mark a member as gone: kept in past splits, not offered for new ones.",
                        arguments: [ExpenseArguments.memberName.help("The member's name.").spec]),
        ])
}

extension ExpenseArguments {
    /// A member's name (`member add NAME`).
    static let memberName = Argument("name", help: "The member's name (1 to 64 characters).")
    /// `member rename NAME NEW`.
    static let newMemberName = Argument("new", help: "The new name (1 to 64 characters).")
}
