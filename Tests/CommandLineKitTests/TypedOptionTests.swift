import CommandLineKit
import Foundation
import Testing

/// Options and flags declared once with their type (``TypedOption``, ``Flag``): the spec they give the parser and
/// help, one way of refusing a word an enumerated option does not know, and no way to read one the spec lacks.
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

    private static let json = Flag("json", help: "Print JSON.")
    private static let note = TypedOption<String>.text("note", value: "text", help: "The note.")
    private static let stats = CommandSpec(name: "stats", abstract: "", options: [period.spec, count.spec, json.spec, note.spec])

    @Test func aParsedCommandGivesTheTypedValue() throws {
        let command = ParsedCommand(path: ["stats"], options: ["period": "year", "count": "3"], declaring: Self.stats.options)
        #expect(try command.value(Self.period) == .year)
        #expect(try command.value(Self.count) == 3)
        #expect(try ParsedCommand(path: ["stats"], declaring: Self.stats.options).value(Self.period) == nil)
        #expect(command.has(Self.period) && !ParsedCommand(path: [], declaring: Self.stats.options).has(Self.count))
    }

    @Test func aRepeatedOptionGivesEveryValueInOrderAndItsLastAsTheValue() throws {
        let root = CommandSpec(name: "tool", abstract: "", subcommands: [Self.stats])
        guard case .run(let given) = try CommandLineParser.parse(["stats", "--count", "1", "--note=a", "--count", "2", "--count=3"], root: root),
              case .run(let bare) = try CommandLineParser.parse(["stats"], root: root) else {
            Issue.record("not a run")
            return
        }
        #expect(try given.values(Self.count) == [1, 2, 3])
        #expect(try given.value(Self.count) == 3)
        #expect(try given.values(Self.note) == ["a"])
        #expect(try bare.values(Self.count).isEmpty)
        #expect(ParsedCommand(path: ["stats"], options: ["note": "x"], declaring: Self.stats.options).texts(Self.note.spec) == ["x"])
    }

    @Test func flagsAndFreeTextAreReadThroughTheirDeclarations() throws {
        let root = CommandSpec(name: "tool", abstract: "", subcommands: [Self.stats])
        guard case .run(let given) = try CommandLineParser.parse(["stats", "--json", "--note", "hi"], root: root),
              case .run(let bare) = try CommandLineParser.parse(["stats"], root: root) else {
            Issue.record("not a run")
            return
        }
        #expect(given[Self.json] && !bare[Self.json])
        #expect(given[Self.note] == "hi" && bare[Self.note] == nil && given.has(Self.note) && !bare.has(Self.note))
        #expect(given.declares(Self.json.spec) && given.declares(Self.period.help("Another text.").spec))
        // Another command's option of the same name but other words, and a flag read as an option, are not this one's.
        #expect(!given.declares(TypedOption<String>.choice("period", help: "", [("day", "day")]).spec))
        #expect(!given.declares(TypedOption<String>.text("json", value: "x", help: "").spec))
        #expect(!given.declares(Flag("jsno", help: "").spec))
    }

    /// A run function that reads an option its command's spec does not declare stops the program at once
    /// (a precondition) instead of reading nothing on every run; seen in a child process (an exit test).
    @Test func readingAnUndeclaredFlagStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let command = ParsedCommand(path: ["stats"], flags: ["json"], declaring: [Flag("json", help: "").spec])
            _ = command[Flag("jsno", help: "")]
        }
    }

    /// The control of the two exit tests around it: the same reads of declared options end normally.
    @Test func readingDeclaredOptionsEndsNormally() async {
        await #expect(processExitsWith: .success) {
            let by = TypedOption<String>.choice("by", help: "", [("category", "category"), ("month", "month")])
            let command = ParsedCommand(path: ["summary"], options: ["by": "category"], flags: ["json"],
                                        declaring: [by.spec, Flag("json", help: "").spec])
            guard command[Flag("json", help: "")], (try? command.value(by)) == "category" else { exit(1) }
        }
    }

    @Test func readingAnUndeclaredOptionStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let command = ParsedCommand(path: ["summary"], options: ["by": "category"],
                                        declaring: [TypedOption<String>.choice("by", help: "", [("category", "category"), ("month", "month")]).spec])
            // `stats --by` has one word, so it is another option than `summary --by`.
            _ = try? command.value(TypedOption<Bool>.choice("by", help: "", [("category", true)]))
        }
    }

    @Test func readingAnUndeclaredArgumentStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let command = ParsedCommand(path: ["delete"], arguments: ["id": "6f96"], declaringArguments: [ArgumentSpec("id", help: "")])
            _ = command[Argument("name", help: "")]
        }
    }

    @Test func aDeclaredArgumentIsRead() {
        let id = Argument("id", help: "The id.")
        let command = ParsedCommand(path: ["delete"], arguments: ["id": "6f96"], declaringArguments: [id.help("Another.").spec])
        #expect(command[id] == "6f96" && command.words(id) == ["6f96"])
    }

    @Test func anIntegerOptionRefusesWhatIsOutsideItsRange() throws {
        let lines = TypedOption<Int>.integer("max-line", value: "bytes", help: "", in: 256...1024)
        let command = { (text: String) in ParsedCommand(path: ["serve"], options: ["max-line": text], declaring: [lines.spec]) }
        #expect(try command("256").value(lines) == 256)
        for bad in ["255", "1025", "x", ""] {
            #expect(throws: UsageError("Invalid value for '--max-line': expected an integer from 256 to 1024, not '\(bad)'", path: ["serve"])) {
                try command(bad).choice(lines)
            }
        }
    }

    @Test(arguments: [(["week"], "week"), (["week", "month"], "week or month"), (["week", "month", "year"], "week, month or year")])
    func aRefusedWordIsAUsageErrorInOneShape(words: [String], listed: String) throws {
        let option = TypedOption<String>.choice("by", help: "", words.map { (word: $0, value: $0) })
        let refused = UsageError("--by must be \(listed), not 'day'", path: ["summary"])
        let command = ParsedCommand(path: ["summary"], options: ["by": "day"], declaring: [option.spec])
        #expect(throws: refused) { try command.value(option) }
        #expect(throws: refused) { try command.choice(option) }
    }

    @Test func anErrorOfAnotherKindGoesThrough() {
        struct Invalid: Error, Equatable {}
        let option = TypedOption<Int>("amount", value: "amount", help: "") { _ in throw Invalid() }
        #expect(throws: Invalid()) { try ParsedCommand(path: ["add"], options: ["amount": "x"], declaring: [option.spec]).value(option) }
        #expect(throws: UsageError("--count takes a whole number, not 'x'", path: ["add"])) {
            try ParsedCommand(path: ["add"], options: ["count": "x"], declaring: [Self.count.spec]).value(Self.count)
        }
    }
}
