import CommandLineKit

/// The positional arguments of `expense`, each declared once: the specs in ``ExpenseCommands`` are built from
/// these (each command with its own help, `.help(…)`) and the run functions read them, `command[id]`.
enum ExpenseArguments {
    /// An expense's (budget's, rule's) amount.
    static let amount = Argument("amount", help: "The amount.")
    /// A category.
    static let category = Argument("category", help: "The category.")
    /// An id or a unique prefix of at least 4 characters.
    static let id = Argument("id", help: "The expense's id or a unique prefix of at least 4 characters.")
    /// `config set|get KEY`.
    static let key = Argument("key", help: "The setting: currency, locale, timezone or me.",
                              completion: .choices(["currency", "locale", "timezone", "me"]))
    /// `config set KEY VALUE`.
    static let value = Argument("value", help: "The new value, such as EUR or de_DE.")
    /// `import FILE`.
    static let file = Argument("file", help: "The CSV or JSON file, or - for standard input.")
    /// `remote set SERVER`.
    static let server = Argument("server", help: "The daemon's tls://HOST:PORT (or HOST:PORT: plaintext), or a comma-separated list of them.")
    /// The second rule of `recurring keep-both ID ID` and `recurring merge KEEP OTHER`.
    static let otherId = Argument("other", help: "The other rule's id or a unique prefix of at least 4 characters.")
    /// `recurring skip ID DATE`.
    static let date = Argument("date", help: "The occurrence's day, YYYY-MM-DD.")
}
