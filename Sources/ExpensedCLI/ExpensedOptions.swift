import CommandLineKit
import ExpenseProtocol

/// The typed options of `expensed`, each declared once with its parsing (``TypedOption``).
enum ExpensedOptions {
    /// `token add --role`: owner, editor or viewer.
    static let role = TypedOption<TokenRole>.choice("role", value: "role", help: ExpensedCommands.roleHelp, required: true)
}
