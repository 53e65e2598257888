import TestSupport
import Foundation
import Testing

/// Input edges of the `expense` binary, run as a real process: bytes that are not UTF-8 on the command line,
/// ids that cannot be ids, boolean environment values, the case of a currency code, the order of months.
@Suite struct ExpenseInputEdgeTests {
    /// Runs `expense` through `/bin/sh`, so an argument can hold bytes that are not UTF-8 (`printf '\351'`),
    /// which a Swift `String` cannot carry.
    private func runRaw(_ expense: ExpenseProcess, _ script: String) throws -> ExpenseProcess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["EXPENSE_HOME"] = expense.home
        environment["EXPENSE_STORE"] = nil
        environment["EXPENSE"] = ExpenseProcess.executable
        return try ExpenseProcess.run("/bin/sh", ["-c", script], environment: environment, scratch: expense.directory)
    }

    /// Latin-1 `café` (0xE9 alone is not UTF-8) used to be stored as `caf\u{FFFD}`: now `invalid_text`, exit 65,
    /// naming the argument, and nothing is stored.
    @Test(arguments: [#""$EXPENSE" add 5 "$(printf 'caf\351')""#,
                      #""$EXPENSE" add 5 food --note "$(printf 'na\357ve')""#,
                      #""$EXPENSE" add 5 food "--note=$(printf '\377')""#,
                      #""$EXPENSE" list --category "$(printf '\300\200')""#])
    func invalidUTF8OnTheCommandLineIsInvalidText(script: String) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try runRaw(expense, script)
            #expect(result.status == 65, "\(result)")
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("Error: invalid_text: argument "), "\(result)")
            #expect(result.stderr.contains("is not UTF-8 text"), "\(result)")
            #expect(!result.stderr.contains("\u{FFFD}"))
            #expect(!FileManager.default.fileExists(atPath: expense.home), "nothing may be created")
        }
    }

    /// Valid UTF-8 written as raw bytes still works (the check is about encoding, not about non-ASCII text).
    @Test func validUTF8BytesOnTheCommandLineAreKept() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let added = try runRaw(expense, #""$EXPENSE" add 5 "$(printf 'caf\303\251')" --date 2026-01-01"#)
            #expect(added.status == 0, "\(added)")
            let id = added.stdout.trimmingCharacters(in: .newlines)
            #expect(try expense.succeed(["export"]) == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(id),2026-01-01,5.00,USD,café,,,,,,,\n")
        }
    }

    /// `edit zzzz` cannot name any expense (ids are hex): `invalid_id` (65), not `unknown_id` (1). A hex prefix
    /// that matches nothing is still `unknown_id`.
    @Test(arguments: [["edit", "zzzz", "--note", "x"], ["delete", "zzzz"], ["edit", "12g4", "--note", "x"],
                      ["resolve", "zzzz", "--mine"], ["delete", "abcd-ef"]])
    func aPrefixThatIsNotHexIsInvalidId(arguments: [String]) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "5", "food"])
            let result = try expense.run(arguments)
            #expect(result.status == 65, "\(result)")
            #expect(result.stderr.hasPrefix("Error: invalid_id: "), "\(result)")
        }
    }

    @Test func aHexPrefixOfADashedIdIsStillFound() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let id = try expense.succeed(["add", "5", "food"]).trimmingCharacters(in: .newlines)
            #expect(try expense.succeed(["delete", String(id.prefix(11)).uppercased()]) == id + "\n")
            let missing = try expense.run(["delete", "0000"])
            #expect(missing.status == 1 && missing.stderr.hasPrefix("Error: unknown_id: "), "\(missing)")
        }
    }

    /// `EXPENSE_VERBOSE=0` and `=false` mean off (they used to turn it on, like any value); `1`/`true` on;
    /// a value that is neither is a usage error naming the variable.
    @Test(arguments: [("0", false), ("false", false), ("no", false), ("off", false), ("", false),
                      ("1", true), ("true", true), ("yes", true), ("on", true)])
    func verboseIsABoolean(value: String, on: Bool) async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            // Nothing listens on port 1: the first attempt fails at once and the verbose log says so.
            let result = try expense.run(["sync"], environment: [
                "EXPENSE_VERBOSE": value, "EXPENSE_SERVER": "127.0.0.1:1", "EXPENSE_LEDGER": "default",
                "EXPENSE_TOKEN": "x", "EXPENSE_SYNC_ATTEMPTS": "2"])
            #expect(result.status == 69, "\(result)")
            #expect(result.stderr.contains("attempt 1 failed") == on, "\(value): \(result)")
        }
    }

    @Test func anUnusableVerboseValueIsAUsageError() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(["list"], environment: ["EXPENSE_VERBOSE": "maybe"])
            #expect(result.status == 64, "\(result)")
            #expect(result.stderr.hasPrefix("Error: EXPENSE_VERBOSE must be"), "\(result)")
        }
    }

    /// Currency codes are upper case by ISO 4217; `config set currency eur` means EUR.
    @Test func configSetCurrencyAcceptsLowerCase() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let set = try expense.run(["config", "set", "currency", "eur"])
            #expect(set.status == 0, "\(set)")
            #expect(try expense.succeed(["config", "get", "currency"]) == "EUR\n")
            #expect(try expense.run(["config", "set", "currency", "xyz"]).status == 65)
        }
    }

    /// `summary --by month` lists months in date order, as its JSON does; categories stay largest first.
    @Test func summaryByMonthIsInDateOrder() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "5", "food", "--date", "2026-01-15"])
            try expense.succeed(["add", "50", "rent", "--date", "2026-02-01"])
            try expense.succeed(["add", "7", "food", "--date", "2025-12-31"])
            #expect(try expense.succeed(["summary", "--by", "month"]) == """
                USD  62.00  (3 expenses)
                  2025-12   7.00   11.3%
                  2026-01   5.00    8.1%
                  2026-02  50.00   80.6%

                """)
            #expect(try expense.succeed(["summary", "--by", "category"]) == """
                USD  62.00  (3 expenses)
                  rent  50.00   80.6%
                  food  12.00   19.4%

                """)
        }
    }
}
