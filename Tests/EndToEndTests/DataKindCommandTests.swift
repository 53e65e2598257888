import ExpenseCore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Budgets, recurring rules and settings in the one outbox, through the real `expense` and a real `expensed`:
/// a kind a daemon starts serving is caught up, and their queued changes are listed by `status` and dropped by
/// `discard` as an expense's are.
@Suite struct DataKindCommandTests {
    /// 2026-10-15 12:00 UTC: before the rules' first days, so no occurrence is created.
    static let environment = ["EXPENSE_NOW": "1792065600", "LC_ALL": "C", "TZ": "UTC"]

    /// An older daemon is played by the real one behind ``KindsNarrowingProxy`` (it serves budgets and settings
    /// only); the same daemon then serves Ann directly, through a relay that only records her requests.
    @Test("a kind the daemon starts serving is read from cursor 0 without the expenses, and the change queued for it goes out")
    func aNewlyServedKindIsCaughtUp() async throws {
        let checks = try await onOwnThread {
            var checks = Checks()
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, data) = try DaemonProcess.serveDefaultLedger(for: [bob])
            defer { _ = daemon.stop() }
            let narrowing = try KindsNarrowingProxy(upstream: try daemon.addressText(), served: ["budget", "setting"])
            defer { narrowing.stop() }
            let requests = RequestLog()
            let recording = try LineRelay(upstream: try daemon.addressText()) { line in
                requests.append(line)
                return line
            }
            defer { recording.stop() }
            for person in [ann, bob] { try person.must(["config", "set", "currency", "EUR"]) }

            // Bob's rule is on the daemon before Ann's first sync: her cursor passes it, through a daemon that serves
            // no rules.
            try bob.must(["add", "7.00", "lunch", "--date", "2026-10-01"])
            let gym = try bob.must(["recurring", "add", "30", "gym", "--every", "month", "--start", "2026-11-30"]).trimmingCharacters(in: .newlines)
            try bob.must(["sync"])

            try ann.must(["remote", "set", narrowing.address, "--ledger", "default", "--token-file", data + "/default.token"])
            try ann.must(["add", "12.50", "food", "--date", "2026-10-02"])
            try ann.must(["budget", "set", "food", "300", "--start", "2026-01-01"])
            let rent = try ann.must(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-11-30"]).trimmingCharacters(in: .newlines)
            let narrowed = try ann.run(["sync"], environment: Self.environment)
            checks.expect(narrowed.status == 0 && narrowing.narrowedHellos >= 1, "\(narrowed)")
            checks.expect(!(try ann.must(["recurring", "list"])).contains(gym.prefix(8)))
            let waiting = try Self.status(ann)
            checks.expect(waiting["pending"] as? Int == 1, "\(waiting)")
            let change = (waiting["changes"] as? [[String: Any]])?.first
            checks.expect(change?["id"] as? String == rent && change?["kind"] as? String == "recurring" && change?["state"] as? String == "unsent",
                    "Ann's rule waits, unnumbered: \(waiting)")
            let cursor = try #require(waiting["cursor"] as? Int)
            checks.expect(cursor > 0)

            try ann.must(["remote", "set", recording.address, "--ledger", "default", "--token-file", data + "/default.token"])
            let full = try ann.run(["sync"], environment: Self.environment)
            checks.expect(full.status == 0, "\(full)")
            let rules = try ann.must(["recurring", "list"])
            checks.expect(rules.contains(gym.prefix(8)) && rules.contains(rent.prefix(8)), "Ann has Bob's rule and her own:\n\(rules)")
            checks.expect(try Self.status(ann)["pending"] as? Int == 0)
            let listed = try ann.must(["list", "--json"])
            checks.expect(listed.components(separatedBy: "\"id\"").count - 1 == 2, "each expense once:\n\(listed)")

            // One catch-up read from 0, without the expenses; every other pull goes on from the cursor Ann had.
            let pulls = requests.lines.filter { $0.contains(#""method":"pull""#) }
            let catchUp = pulls.filter { $0.contains(#""expenses":false"#) }
            let others = pulls.filter { !$0.contains(#""expenses":false"#) }
            checks.expect(catchUp.count == 1 && catchUp.allSatisfy { Self.since(in: $0) == 0 }, "\(pulls)")
            checks.expect(!others.isEmpty && others.allSatisfy { (Self.since(in: $0) ?? 0) >= cursor }, "\(pulls)")

            try bob.must(["sync"])
            checks.expect(try bob.must(["recurring", "list"]).contains(rent.prefix(8)))
            return checks
        }
        checks.record()
    }

    @Test("status lists a pending budget change with its kind, in text and --json")
    func statusNamesTheKindOfAPendingChange() async throws {
        let checks = try await onOwnThread {
            var checks = Checks()
            let ann = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            try ann.must(["config", "set", "currency", "EUR"])
            let id = try ann.must(["budget", "set", "food", "100", "--start", "2026-01-01"])
                .trimmingCharacters(in: .newlines)
            try ann.must(["sync"])
            try ann.must(["budget", "set", "food", "200", "--from", "2026-06-01"])

            let json = try Self.status(ann)
            let changes = try #require(json["changes"] as? [[String: Any]])
            checks.expect(json["pending"] as? Int == 1 && changes.count == 1, "\(json)")
            checks.expect(changes.first?["id"] as? String == id && changes.first?["kind"] as? String == "budget"
                    && changes.first?["type"] as? String == "put" && changes.first?["baseVersion"] as? Int == 1, "\(json)")
            let text = try ann.must(["status"])
            let line = text.split(separator: "\n").first { $0.contains(id.prefix(8)) }
            checks.expect(line?.contains("budget") == true && line?.hasPrefix("  modified") == true, "\(text)")
            return checks
        }
        checks.record()
    }

    @Test("discard ID drops pending budget, rule and setting changes: the daemon's records are shown again, and the output names them")
    func discardDropsDataChanges() async throws {
        let checks = try await onOwnThread {
            var checks = Checks()
            let ann = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            try ann.must(["config", "set", "currency", "EUR"])
            let budget = try ann.must(["budget", "set", "food", "100", "--start", "2026-01-01"]).trimmingCharacters(in: .newlines)
            let rule = try ann.must(["recurring", "add", "950", "rent", "--every", "month", "--start", "2026-11-30"])
                .trimmingCharacters(in: .newlines)
            try ann.must(["config", "set", "timezone", "Europe/Berlin"])
            try ann.must(["sync"])
            let setting = UUIDText.lowercased(LedgerSetting.id(.timezone))
            try ann.must(["budget", "set", "food", "200", "--from", "2026-06-01"])
            try ann.must(["recurring", "skip", String(rule.prefix(8)), "2026-12-30"])
            try ann.must(["config", "set", "timezone", "Asia/Tokyo"])
            checks.expect(try ann.must(["budget", "list", "--json"]).contains(#""amount" : 20000"#))
            checks.expect(try ann.must(["recurring", "list"]).contains("1 skipped"))

            let dropped = try ann.run(["discard", String(budget.prefix(8)), String(rule.prefix(8)), String(setting.prefix(8))],
                                      environment: Self.environment)
            checks.expect(dropped.status == 0 && dropped.stdout == [budget, rule, setting].map { $0 + "\n" }.joined(), "\(dropped)")
            checks.expect(dropped.stderr == "Discarded modified budget \(budget.prefix(8)) (amounts).\n"
                          + "Now shown as the server has it: budget \(budget.prefix(8)).\n"
                          + "Discarded modified recurring \(rule.prefix(8)) (skips).\n"
                          + "Now shown as the server has it: recurring \(rule.prefix(8)).\n"
                          + "Discarded modified setting \(setting.prefix(8)) (value).\n"
                          + "Now shown as the server has it: setting \(setting.prefix(8)).\n", "\(dropped)")
            let budgets = try ann.must(["budget", "list", "--json"])
            checks.expect(budgets.contains(#""amount" : 10000"#) && !budgets.contains(#""amount" : 20000"#), "\(budgets)")
            let rules = try ann.must(["recurring", "list"])
            checks.expect(rules.contains(rule.prefix(8)) && !rules.contains("skipped"), "\(rules)")
            checks.expect(try ann.must(["config", "get", "timezone"]) == "Europe/Berlin\n")
            checks.expect(try Self.status(ann)["pending"] as? Int == 0)
            checks.expect(try ann.must(["sync"]) == "up to date\n")
            return checks
        }
        checks.record()
    }

    /// The daemon refuses a budget whose id belongs to a record of another kind (MutationRules+Data.swift); the
    /// one such record a person can make is an expense imported with that id, as Bob does here. (Every other
    /// refusal of a budget, rule or setting is a validation the client runs first with the same code.)
    @Test("discard --rejected drops a budget the daemon rejected, and says what it dropped")
    func discardRejectedDropsARejectedBudget() async throws {
        let checks = try await onOwnThread {
            var checks = Checks()
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            for person in [ann, bob] { try person.must(["config", "set", "currency", "EUR"]) }
            try ann.must(["budget", "set", "food", "100", "--start", "2026-01-01"])
            try ann.must(["sync"])
            let travel = UUIDText.lowercased(Budget.id(category: "travel", currency: try #require(Currency(code: "EUR"))))
            let item = #"[{"id":"\#(travel)","date":"2026-10-01","amount":500,"currency":"EUR","category":"misc"}]"#
            let imported = try bob.run(["import", "-", "--format", "json"], environment: Self.environment, stdin: item)
            checks.expect(imported.status == 0, "\(imported)")
            try bob.must(["sync"])

            let id = try ann.must(["budget", "set", "travel", "50", "--start", "2026-01-01"])
                .trimmingCharacters(in: .newlines)
            checks.expect(id == travel)
            let sync = try ann.run(["sync"], environment: Self.environment)
            checks.expect(sync.status == 65 && sync.stderr.contains("the daemon rejected 1"), "\(sync)")
            let status = try ann.must(["status"])
            checks.expect(status.contains("\(id.prefix(8))  budget  REJECTED invalid_id"), "\(status)")

            let dropped = try ann.run(["discard", "--rejected"], environment: Self.environment)
            checks.expect(dropped.status == 0 && dropped.stdout == id + "\n", "\(dropped)")
            checks.expect(dropped.stderr == "Discarded new budget \(id.prefix(8)) (rejected: invalid_id).\n"
                    + "The daemon never had it: it is gone.\n", "\(dropped)")
            let budgets = try ann.must(["budget", "list"])
            checks.expect(budgets.contains("food") && !budgets.contains("travel"), "\(budgets)")
            let json = try Self.status(ann)
            checks.expect(json["pending"] as? Int == 0 && json["rejected"] as? Int == 0, "\(json)")
            // Bob's expense of that id is untouched.
            checks.expect(try ann.must(["list"]).contains("misc"))
            let again = try ann.run(["sync"], environment: Self.environment)
            checks.expect(again.status == 0, "\(again)")
            return checks
        }
        checks.record()
    }

    /// The `since` of a pull request line (the client writes it with no spaces).
    private static func since(in line: String) -> Int? {
        guard let start = line.range(of: #""since":"#)?.upperBound else { return nil }
        return Int(line[start...].prefix { $0.isNumber })
    }

    /// `expense status --json` of `person`, as an object.
    private static func status(_ person: ExpenseProcess) throws -> [String: Any] {
        let text = try person.must(["status", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}

extension ExpenseProcess {
    /// `expense arguments…` with the suite's clock and locale, which must succeed (a failure is thrown, so it
    /// fails the test that ran it); its standard output.
    @discardableResult
    fileprivate func must(_ arguments: [String]) throws -> String {
        let result = try run(arguments, environment: DataKindCommandTests.environment)
        guard result.status == 0 else { throw StepFailure(arguments: arguments, result: result) }
        return result.stdout
    }
}

/// A command that had to succeed and did not.
private struct StepFailure: Error, CustomStringConvertible {
    var arguments: [String]
    var result: ExpenseProcess.Result
    var description: String { "expense \(arguments.joined(separator: " ")): \(result)" }
}

/// What a story saw, recorded as expectations afterwards in the test's own task: an expectation recorded on the
/// story's raw thread (``onOwnThread``) would be attributed to no test.
private struct Checks: Sendable {
    private struct Check: Sendable {
        var holds: Bool
        var comment: String
        var sourceLocation: SourceLocation
    }

    private var checks: [Check] = []

    mutating func expect(_ holds: Bool, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        checks.append(Check(holds: holds, comment: comment, sourceLocation: sourceLocation))
    }

    func record() {
        for check in checks {
            let holds = check.holds
            #expect(holds, Comment(rawValue: check.comment), sourceLocation: check.sourceLocation)
        }
    }
}

/// The request lines a relay passed on, in order.
private final class RequestLog: Sendable {
    private let recorded = Mutex<[String]>([])

    func append(_ line: [UInt8]) { recorded.withLock { $0.append(String(decoding: line, as: UTF8.self)) } }

    var lines: [String] { recorded.withLock { $0 } }
}
