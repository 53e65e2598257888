/// The `help` command every program has unless its root defines a `help` subcommand of its own:
/// `tool help`, `tool help config set`, and `tool help help`, which describes this command.
enum HelpCommand {
    /// The word that selects it.
    static let name = "help"

    /// Its spec, for `tool help help` and the usage line of its errors.
    static let spec = CommandSpec(
        name: name, abstract: "Show help information for a subcommand.",
        discussion: "  The same text as `--help` after the subcommand. With no subcommand, the help of the program.",
        arguments: [ArgumentSpec("subcommand", help: "The subcommand to describe; nested ones as several words (config set).",
                                 optional: true, variadic: true, completion: ValueCompletion.none)])

    /// Whether `root` gets the implicit help command (it has no `help` subcommand of its own).
    static func isImplicit(in root: CommandSpec) -> Bool { root.subcommand(named: name) == nil }
}
