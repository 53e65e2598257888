import CommandLineKit
import Testing

/// Options declared once with their type (``TypedOption``): the spec they give the parser and help, and one
/// way of refusing a word an enumerated option does not know.
struct TypedOptionTests {
    private enum Period: String, CaseIterable, Sendable { case week, month, year }

    private static let period = TypedOption<Period>.choice("period", help: "The period.")
    private static let count = TypedOption<Int>("count", value: "n", help: "How many.") { text in
        guard let value = Int(text) else { throw OptionValueError("--count takes a whole number, not '\(text)'") }
        return value
    }

    @Test func anEnumeratedOptionsSpecListsItsWords() {
        #expect(Self.period.spec.synopsis == "--period <week|month|year>")
        #expect(Self.period.spec.completion == .choices(["week", "month", "year"]))
        #expect(Self.period.help("Another text.").spec.help == "Another text." && Self.period.spec.help == "The period.")
    }

    @Test func aParsedCommandGivesTheTypedValue() throws {
        let command = ParsedCommand(path: ["stats"], options: ["period": "year", "count": "3"])
        #expect(try command.value(Self.period) == .year)
        #expect(try command.value(Self.count) == 3)
        #expect(try ParsedCommand(path: ["stats"]).value(Self.period) == nil)
        #expect(command.has(Self.period) && !ParsedCommand(path: []).has(Self.count))
    }

    @Test(arguments: [(["week"], "week"), (["week", "month"], "week or month"), (["week", "month", "year"], "week, month or year")])
    func aRefusedWordIsAUsageErrorInOneShape(words: [String], listed: String) throws {
        let option = TypedOption<String>.choice("by", help: "", words.map { (word: $0, value: $0) })
        let refused = UsageError("--by must be \(listed), not 'day'", path: ["summary"])
        #expect(throws: refused) { try ParsedCommand(path: ["summary"], options: ["by": "day"]).value(option) }
        #expect(throws: refused) { try ParsedCommand(path: ["summary"], options: ["by": "day"]).choice(option) }
    }

    @Test func anErrorOfAnotherKindGoesThrough() {
        struct Invalid: Error, Equatable {}
        let option = TypedOption<Int>("amount", value: "amount", help: "") { _ in throw Invalid() }
        #expect(throws: Invalid()) { try ParsedCommand(path: ["add"], options: ["amount": "x"]).value(option) }
        #expect(throws: UsageError("--count takes a whole number, not 'x'", path: ["add"])) {
            try ParsedCommand(path: ["add"], options: ["count": "x"]).value(Self.count)
        }
    }
}
