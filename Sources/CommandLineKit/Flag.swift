/// A flag declared once: its spec (name, short name, help) and the value a run function reads,
/// `command[Options.json]`, so no run function looks a flag up by its name.
///
/// swift-argument-parser's `@Flag var json = false` is the model; like ``TypedOption`` this is a plain value that
/// the command's ``CommandSpec`` is built from (`options: [Options.json.spec]`). Reading a flag the command's spec
/// does not declare stops the program (``ParsedCommand/subscript(_:)``).
public struct Flag: Sendable {
    /// The flag as the parser, the help text and the completions see it.
    public var spec: OptionSpec

    /// The flag `--name` (and `-short`).
    public init(_ name: String, short: Character? = nil, help: String) {
        spec = .flag(name, short: short, help: help)
    }

    /// The long name without dashes (`json`).
    public var name: String { spec.name }

    /// The same flag with a command's own help text (the `--json` of `list` and of `status` say different things).
    public func help(_ text: String) -> Flag {
        var copy = self
        copy.spec.help = text
        return copy
    }
}
