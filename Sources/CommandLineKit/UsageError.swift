/// A command line that does not fit the command's spec. Printed to stderr, exit code 64.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, such as `Unknown option '-3'`.
    public var message: String
    /// The command it concerns, such as `["add"]`; empty for the root.
    public var path: [String]

    public init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }

    public var description: String { message }

    /// The three lines for stderr: `Error: …`, `Usage: …`, `See '… --help' for more information.`
    public func report(root: CommandSpec) -> String {
        let command = ([root.name] + path).joined(separator: " ")
        let usage = HelpFormatter.usage(root: root, path: path) ?? command
        return "Error: \(message)\nUsage: \(usage)\nSee '\(command) --help' for more information.\n"
    }
}
