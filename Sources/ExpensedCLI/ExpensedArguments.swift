import CommandLineKit

/// The positional arguments of `expensed`, each declared once: the specs in ``ExpensedCommands`` are built from
/// these (each command with its own help, `.help(…)`) and the run functions read them, `command[name]`.
enum ExpensedArguments {
    /// A ledger's or a token's name.
    static let name = Argument("name", help: "The name.")
    /// `backup FILE`, `restore FILE`.
    static let file = Argument("file", help: "The backup file.")
}
