import TestSupport
import Foundation
import ProcessSpawn
import Testing

/// What `expense sync` tells: the report counts others' changes only, its `--json` keys are fixed, nothing goes
/// to a standard error that is not a terminal, a silent server is given up on, and a synced cache takes its
/// ledger's currency.
@Suite(.serialized) struct ExpenseSyncFeedbackTests {
    /// Every key of `sync --json`, in order (docs/usage.md, "Sync"): scripts read them, so they never change meaning;
    /// each `new…` counts this sync and each `open…` what is open after it (`conflicts` and `rejected` were removed).
    static let jsonKeys = ["pushed", "pulled", "newConflicts", "openConflicts", "newRejections", "openRejections",
                           "pending", "cursor"]

    @Test func syncReportsWhatOthersChangedNotTheEchoOfItsOwnPushes() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText(), tokenFile = data + "/default.token"
            for amount in ["1", "2", "3"] { try ann.succeed(["add", amount, "food", "--date", "2026-03-01"]) }
            try ann.succeed(["remote", "set", address, "--ledger", "default", "--token-file", tokenFile])
            let first = try ann.run(["sync", "--json"])
            #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")
            #expect(first.stdout == #"{"pushed":3,"pulled":0,"newConflicts":0,"openConflicts":0,"newRejections":0,"#
                    + #""openRejections":0,"pending":0,"cursor":3}"# + "\n", "\(first)")
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Int])
            #expect(Set(keys.keys) == Set(Self.jsonKeys))
            #expect(try ann.succeed(["sync"]) == "up to date\n")

            try bob.succeed(["remote", "set", address, "--ledger", "default", "--token-file", tokenFile])
            try bob.succeed(["add", "4", "rent", "--date", "2026-03-02"])
            #expect(try bob.succeed(["sync"]) == "pushed 1, pulled 3, conflicts 0\n")
            #expect(try ann.succeed(["sync"]) == "pushed 0, pulled 1, conflicts 0\n")
        }
    }

    /// A CSV of 1024 rows of the largest amount in `currency`: they sum to 2^63 − 1024 minor units, so the
    /// daemon rejects any later expense of more than 10.23 in that currency (`amount_overflow`).
    static func largestAmounts(_ currency: String) -> String {
        "date,amount,currency,category,note\n" + String(repeating: "2026-02-01,90071992547409.91,\(currency),big,\n", count: 1024)
    }

    /// One sync with a new conflict beside an older open one, and a new rejection beside an older one: every
    /// `new…` key counts only this sync, every `open…` key what stays open, and no other key is there.
    @Test func syncJSONKeepsThisSyncsCountsApartFromWhatIsOpen() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText(), tokenFile = data + "/default.token"
            for person in [ann, bob] {
                try person.succeed(["remote", "set", address, "--ledger", "default", "--token-file", tokenFile])
            }
            let first = try ann.succeed(["add", "1", "food", "--currency", "CHF"]).trimmingCharacters(in: .newlines)
            let second = try ann.succeed(["add", "2", "food", "--currency", "CHF"]).trimmingCharacters(in: .newlines)
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])

            // One round: Ann changes `id` and takes `currency`'s total to the largest; Bob changes `id` too and
            // adds an expense in `currency`, which the daemon rejects: one conflict and one rejection.
            let round = { (id: String, currency: String) throws -> ExpenseProcess.Result in
                try ann.succeed(["edit", String(id.prefix(8)), "--amount", "3"])
                #expect(try ann.run(["import", "-"], stdin: Self.largestAmounts(currency)).status == 0)
                try ann.succeed(["sync"])
                try bob.succeed(["edit", String(id.prefix(8)), "--amount", "4"])
                try bob.succeed(["add", "11", "food", "--currency", currency])
                return try bob.run(["sync", "--json"])
            }
            // The older sync: its conflict and rejection stay open.
            let older = try round(first, "USD")
            #expect(older.status == 65 && older.stdout == #"{"pushed":0,"pulled":1025,"newConflicts":1,"openConflicts":1,"#
                    + #""newRejections":1,"openRejections":1,"pending":1,"cursor":1027}"# + "\n", "\(older)")
            // This sync: one more of each, the older ones still open.
            let synced = try round(second, "EUR")
            #expect(synced.status == 65 && synced.stdout == #"{"pushed":0,"pulled":1025,"newConflicts":1,"openConflicts":2,"#
                    + #""newRejections":1,"openRejections":2,"pending":2,"cursor":2052}"# + "\n", "\(synced)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(synced.stdout.utf8)) as? [String: Int])
            #expect(Set(object.keys) == Set(Self.jsonKeys) && object.count == Self.jsonKeys.count)
        }
    }

    @Test func syncWritesNothingToAStandardErrorThatIsNotATerminal() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            try ann.succeed(["remote", "set", try daemon.addressText(), "--ledger", "default", "--token-file", data + "/default.token"])
            let imported = try ann.run(["import", "-"], stdin: "date,amount,currency,category,note\n"
                                            + (1...300).map { "2026-03-01,\($0),USD,food,\n" }.joined())
            #expect(imported.status == 0, "\(imported)")
            let synced = try ann.run(["sync"])
            #expect(synced.status == 0 && synced.stdout == "pushed 300, pulled 0, conflicts 0\n" && synced.stderr.isEmpty, "\(synced)")
        }
    }

    /// The same sync on a pseudo-terminal (`script`, where installed): the progress is drawn and cleared.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func onATerminalSyncTellsWhatItIsDoing() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText()
            try ann.succeed(["remote", "set", address, "--ledger", "default", "--token-file", data + "/default.token"])
            let imported = try ann.run(["import", "-"], stdin: "date,amount,currency,category,note\n"
                                            + (1...300).map { "2026-03-01,\($0),USD,food,\n" }.joined())
            #expect(imported.status == 0, "\(imported)")
            let synced = try ann.run(["-qec", ExpenseProcess.executable + " sync", "/dev/null"], executable: "/usr/bin/script")
            #expect(synced.status == 0, "\(synced)")
            #expect(synced.stdout.contains("\rconnecting to \(address)…"), "\(synced)")
            #expect(synced.stdout.contains("\rpushing 300/300 changes (100 %)"), "\(synced)")
            #expect(synced.stdout.contains("\r\u{1B}[Kpushed 300, pulled 0, conflicts 0"), "\(synced)")
        }
    }

    @Test func aServerThatAcceptsButNeverAnswersIsGivenUpOnAfterTheConnectTimeout() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let silent = try SilentListener()
            try ann.succeed(["add", "1", "food"])
            let environment = ["EXPENSE_SERVER": silent.address, "EXPENSE_LEDGER": "default", "EXPENSE_TOKEN": "t",
                               "EXPENSE_CONNECT_TIMEOUT": "0.5", "EXPENSE_SYNC_ATTEMPTS": "4"]
            let clock = ContinuousClock(), began = clock.now
            let result = try ann.run(["sync"], environment: environment)
            let took = clock.now - began
            #expect(result.status == 69 && result.stderr.contains("server_unreachable")
                    && result.stderr.contains("did not answer hello within 0.5 s"), "\(result)")
            #expect(took < .seconds(10), "took \(took)")
            #expect(try ann.succeed(["status", "--json"]).contains(#""pending" : 1"#))
            for bad in ["0", "-1", "ten", "601"] {
                let refused = try ann.run(["sync"], environment: ["EXPENSE_CONNECT_TIMEOUT": bad])
                #expect(refused.status == 64 && refused.stderr.contains("EXPENSE_CONNECT_TIMEOUT"), "\(bad): \(refused)")
            }
        }
    }

    @Test func aSyncedCacheTakesItsLedgersCurrencyUnlessThePersonSetOne() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let data = ann.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: ann.directory, ["--currency", "EUR"])
            defer { _ = daemon.stop() }
            try ann.succeed(["remote", "set", try daemon.addressText(), "--ledger", "default", "--token-file", data + "/default.token"])
            try ann.succeed(["sync"])
            try ann.succeed(["add", "5", "food"])
            let listed = try ann.succeed(["list", "--json"])
            #expect(listed.contains("EUR") && !listed.contains("USD"), "\(listed)")
            #expect(try ann.succeed(["config", "get", "currency"]) == "EUR\n")
            try ann.succeed(["config", "set", "currency", "JPY"])
            try ann.succeed(["sync"])
            #expect(try ann.succeed(["config", "get", "currency"]) == "JPY\n")
            try ann.succeed(["add", "7", "food"])
            #expect(try ann.succeed(["list", "--json"]).contains("JPY"))
        }
    }
}
