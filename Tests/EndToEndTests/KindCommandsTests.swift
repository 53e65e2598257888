@testable import ExpenseCLI
import Testing

/// A record kind's commands are run from its group's table (``KindCommands``), not from a `switch` naming each:
/// every subcommand the group's spec offers has a run, and nothing else does.
@Suite struct KindCommandsTests {
    @Test func everySubcommandOfAKindGroupHasItsRun() {
        #expect(!ExpenseCommands.kindGroups.isEmpty)
        for group in ExpenseCommands.kindGroups {
            #expect(Set(group.spec.subcommands.map(\.name)) == Set(group.runs.keys), "\(group.spec.name)")
            #expect(ExpenseCommands.root.subcommands.contains { $0.name == group.spec.name }, "\(group.spec.name)")
        }
    }
}
