import TestSupport
import Foundation
import Testing

/// The rules the command line declares once (docs/usage.md, "--json" and "An enumerated option"): every `--json` is laid out by one writer
/// (an empty list is `[]`, text such as `tls://` is not escaped), every enumerated option refuses another
/// word the same way, and the field options keep their one rule in `edit` and `resolve`.
@Suite(.serialized) struct CommandOptionAndJSONShapeTests {
    @Test func everyJSONListWithNothingInItIsTwoBrackets() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            for command in [["list", "--json"], ["budget", "list", "--json"], ["budget", "status", "--json"],
                            ["recurring", "list", "--json"], ["conflicts", "--json"]] {
                let result = try ann.run(command)
                #expect(result.status == 0 && result.stdout == "[]\n", "\(command): \(result)")
            }
        }
    }

    @Test func statusJSONWritesTheServerAsGivenAndNoChangesAsEmptyLists() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let environment = ["EXPENSE_SERVER": "tls://expense.example:7468", "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": "t"]
            let result = try ann.run(["status", "--json"], environment: environment)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains(#"  "server" : "tls://expense.example:7468","#), "\(result)")
            #expect(result.stdout.contains(#"  "changes" : [],"#) && result.stdout.contains(#"  "conflictIds" : [],"#), "\(result)")
        }
    }

    @Test(arguments: [
        (["summary", "--by", "week"], "Error: --by must be category or month, not 'week'\n"),
        (["stats", "--by", "month"], "Error: --by must be category, not 'month'\n"),
        (["stats", "--period", "day"], "Error: --period must be week, month, quarter or year, not 'day'\n"),
        (["export", "--format", "xml"], "Error: --format must be csv, json, hledger or beancount, not 'xml'\n"),
        (["import", "-", "--format", "xml"], "Error: --format must be csv, json or splitwise, not 'xml'\n"),
        (["budget", "set", "food", "10", "--period", "day"], "Error: --period must be week, month, quarter or year, not 'day'\n"),
        (["budget", "set", "food", "10", "--rollover", "all"], "Error: --rollover must be none, positive or full, not 'all'\n"),
    ])
    func anEnumeratedOptionRefusesAnotherWordInOneShape(arguments: [String], firstLine: String) async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let result = try ann.run(arguments, stdin: "")
            #expect(result.status == 64 && result.stdout.isEmpty && result.stderr.hasPrefix(firstLine), "\(result)")
        }
    }

    /// Every day option is one declaration (`ExpenseOptions.day`): a day that is not real is invalid data naming it.
    @Test(arguments: [["list", "--from", "2026-02-30"], ["summary", "--to", "x"], ["log", "--since", "2026-1-1"],
                      ["budget", "status", "--on", "x"], ["recurring", "preview", "--until", "x"], ["stats", "--from", "x"],
                      ["budget", "set", "food", "10", "--start", "x"], ["recurring", "add", "5", "gym", "--every", "month", "--start", "x"]])
    func aDayOptionRefusesADayThatIsNotReal(arguments: [String]) async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let result = try ann.run(arguments)
            #expect(result.status == 65 && result.stderr.hasPrefix("Error: invalid_date: invalid date '"), "\(result)")
        }
    }

    @Test func expensedRefusesAnUnknownRoleInTheSameShape() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let result = try ExpenseProcess.run(ExpenseProcess.daemonExecutable,
                                                ["token", "add", "laptop", "--ledger", "default", "--role", "admin",
                                                 "--data", ann.directory + "/data"],
                                                environment: ProcessInfo.processInfo.environment, scratch: ann.directory)
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.hasPrefix("Error: --role must be owner, editor or viewer, not 'admin'\n"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: ann.directory + "/data"), "nothing is created for a refused command line")
        }
    }

    @Test func theFieldOptionsKeepTheirRuleInEditAndResolve() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let id = try ann.succeed(["add", "12.50", "food", "--date", "2026-03-01"]).trimmingCharacters(in: .newlines)
            let cases: [([String], Int32, String)] = [
                (["edit", id], 64, "Error: Nothing to change: give at least one of --amount, --category, --date, --note, --currency, --paid-by, --split, --no-split, --no-paid-by, --paid, --no-paid, --tag, --no-tags, --part, --no-parts\n"),
                (["edit", id, "--currency", "EUR"], 64,
                 "Error: --currency needs --amount too, since the same digits mean different money in another currency\n"),
                (["edit", id, "--amount", "1.234"], 65, "Error: invalid_amount"),
                (["edit", id, "--amount", "3", "--currency", "eu"], 65, "Error: invalid_currency"),
                (["resolve", id, "--theirs", "--note", "x"], 64, "Error: --note needs --edit\n"),
                (["resolve", id, "--mine", "--currency", "EUR"], 64, "Error: --currency needs --edit\n"),
            ]
            for (arguments, status, prefix) in cases {
                let result = try ann.run(arguments)
                #expect(result.status == status && result.stderr.hasPrefix(prefix), "\(arguments): \(result)")
            }
            #expect(try ann.succeed(["edit", id, "--amount", "1500", "--currency", "JPY", "--note", "lunch"]) == id + "\n")
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.contains(#""amount" : 1500,"#) && listed.contains(#""currency" : "JPY","#)
                    && listed.contains(#""note" : "lunch""#), "\(listed)")
        }
    }
}
