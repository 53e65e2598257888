/// A usage mistake: printed as `Error: …`, the command's usage line and a pointer to its help; exit 64.
struct UsageError: Error {
    var message: String
    /// The subcommand path for the hint (`serve`, `ledger add`).
    var command: String
}

/// The small hand-written argument parser of `expensed`: `--name VALUE`, `--name=VALUE`, flags, positionals,
/// and `--` to end options.
struct ArgumentScanner {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Scans `arguments`, knowing which options take a value and which are flags.
    /// - Throws: ``UsageError`` for an unknown option or a missing value.
    init(_ arguments: [String], command: String, valued: Set<String>, flags knownFlags: Set<String>) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if knownFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value", command: command) }
                flags.insert(name)
            } else if valued.contains(name) {
                if let inlineValue {
                    options[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError(message: "\(name) needs a value", command: command) }
                    options[name] = arguments[index]
                    index += 1
                }
            } else {
                throw UsageError(message: "unknown option '\(name)'", command: command)
            }
        }
    }

    func value(_ name: String) -> String? { options[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>, command: String) throws(UsageError) -> Int? {
        guard let text = options[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                             command: command)
        }
        return number
    }

    /// Fails when more positionals were given than `count`.
    func expectAtMost(_ count: Int, command: String) throws(UsageError) {
        if positionals.count > count {
            throw UsageError(message: "unexpected argument '\(positionals[count])'", command: command)
        }
    }
}
