import CommandLineKit

extension ExitCode {
    /// `expense sync` did its work, but left conflicts for a person to resolve (`expense conflicts`).
    static let conflictsRemain = ExitCode(rawValue: 3)
}
