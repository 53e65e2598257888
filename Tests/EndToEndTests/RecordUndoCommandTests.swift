import Foundation
import TestSupport
import Testing

/// `expense undo --last` and `expense undo ID` of commands on records other than expenses (rules, budgets,
/// recurring rules, rates), through the real binary: each command is one journal entry, reverted as a whole, and
/// never over a change made since.
@Suite struct RecordUndoCommandTests {
    static let environment = RuleCommandTests.environment

    static func id(_ output: String) -> String { RuleCommandTests.id(output) }

    static func positions(_ process: ExpenseProcess) throws -> [String: Int64] { try RuleCommandTests.positions(process) }

    /// The rules' ids in the order they run.
    static func order(_ process: ExpenseProcess) throws -> [String] {
        try process.succeed(["rule", "list"], environment: environment).split(separator: "\n").map { String($0.dropFirst(3).prefix(8)) }
    }

    @Test("rule add, move (with the rules spaced again) and remove are each undone by undo --last, in journal order with expenses")
    func rulesUndoneInOrder() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let first = Self.id(try ann.succeed(["rule", "add", "--name", "one", "--match", "note~a", "--set-category", "a"]))
            let second = Self.id(try ann.succeed(["rule", "add", "--name", "two", "--match", "note~b", "--add-tag", "bee"]))
            let json = try ann.succeed(["rule", "list", "--json"])
            let expense = Self.id(try ann.succeed(["add", "3.50", "coffee"]))
            try ann.succeed(["rule", "move", String(second.prefix(8)), "--before", String(first.prefix(8))])
            #expect(try Self.order(ann) == [second, first].map { String($0.prefix(8)) })
            let undoneMove = try ann.run(["undo", "--last"])
            #expect(undoneMove.status == 0 && undoneMove.stdout == second + "\n" && undoneMove.stderr.contains("`rule move`"), "\(undoneMove)")
            #expect(try ann.succeed(["rule", "list", "--json"]) == json)
            let undoneAdd = try ann.run(["undo", "--last"])
            #expect(undoneAdd.status == 0 && undoneAdd.stdout == expense + "\n", "the expense, the command before: \(undoneAdd)")

            // Moves into one gap until one has to space every rule again: that move is one command, and its undo
            // puts every position back.
            let third = Self.id(try ann.succeed(["rule", "add", "--name", "three", "--match", "note~c", "--set-category", "c"]))
            try ann.succeed(["rule", "move", String(third.prefix(8)), "--before", String(first.prefix(8))])
            var spacedAgain = false
            for round in 0..<100 where !spacedAgain {
                let (rule, before) = round % 2 == 0 ? (second, first) : (first, second)
                let positions = try Self.positions(ann)
                try ann.succeed(["rule", "move", String(rule.prefix(8)), "--before", String(before.prefix(8))])
                let moved = try Self.positions(ann)
                guard moved.filter({ positions[$0.key] != $0.value }).count > 1 else { continue }
                spacedAgain = true
                let undone = try ann.run(["undo", "--last"])
                #expect(undone.status == 0 && undone.stderr.contains("(3 records)"), "\(undone)")
                #expect(try Self.positions(ann) == positions, "every position as before the move")
            }
            #expect(spacedAgain)

            try ann.succeed(["rule", "remove", String(third.prefix(8))])
            try ann.succeed(["rule", "remove", String(second.prefix(8))])
            try ann.succeed(["rule", "remove", String(first.prefix(8))])
            #expect(try Self.order(ann).isEmpty)
            let restored = try ann.run(["undo", "--last"])
            #expect(restored.status == 0 && restored.stderr.contains("rule remove"), "\(restored)")
            let back = try ann.succeed(["rule", "list", "--json"])
            #expect(back.contains(first) && back.contains(#""name" : "one""#) && !back.contains(second), "\(back)")
            // Undone commands are skipped by the next undo --last; the undo itself is not undone by it.
            let again = try ann.run(["undo", "--last"])
            #expect(again.status == 0 && again.stderr.contains("`rule remove`"), "the removal before the undone one: \(again)")
            #expect(try Self.order(ann).count == 2)
        }
    }

    @Test("budget set and remove, recurring add, rate set: each undone by undo --last to exactly what was there")
    func otherKinds() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["budget", "set", "food", "200"])
            try ann.succeed(["budget", "set", "food", "250"])
            try ann.succeed(["undo", "--last"])
            #expect(try ann.succeed(["budget", "list"], environment: Self.environment).contains("200.00"))
            try ann.succeed(["budget", "remove", "food"])
            try ann.succeed(["undo", "--last"])
            #expect(try ann.succeed(["budget", "list"], environment: Self.environment).contains("200.00"))
            // The next one skips the undone set of 250: it reverts the set of 200, which made the budget.
            try ann.succeed(["undo", "--last"])
            #expect(try !ann.succeed(["budget", "list"], environment: Self.environment).contains("food"))

            try ann.succeed(["recurring", "add", "9.99", "music", "--every", "1 month", "--start", "2026-01-05"])
            #expect(try ann.succeed(["recurring", "list"], environment: Self.environment).contains("music"))
            try ann.succeed(["undo", "--last"])
            #expect(try !ann.succeed(["recurring", "list"], environment: Self.environment).contains("music"))

            try ann.succeed(["rate", "set", "2026-12-01", "CHF", "EUR", "1.07"])
            try ann.succeed(["undo", "--last"])
            #expect(try !ann.succeed(["rate", "list"], environment: Self.environment).contains("1.07"))
        }
    }

    @Test("an undo over a change made since on another machine is refused (changed_since) and changes nothing")
    func changedSinceIsRefused() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob])
            defer { _ = daemon.stop() }
            let first = Self.id(try ann.succeed(["rule", "add", "--name", "one", "--match", "note~a", "--set-category", "a"]))
            let second = Self.id(try ann.succeed(["rule", "add", "--name", "two", "--match", "note~b", "--set-category", "b"]))
            try ann.succeed(["rule", "move", String(second.prefix(8)), "--before", String(first.prefix(8))])
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            try bob.succeed(["rule", "remove", String(second.prefix(8))])
            try bob.succeed(["sync"])
            try ann.succeed(["sync"])
            let before = try ann.succeed(["rule", "list", "--json"])
            let refused = try ann.run(["undo", "--last"])
            #expect(refused.status == 1 && refused.stderr.hasPrefix("Error: changed_since: rule \(second.prefix(8))"), "\(refused)")
            #expect(try ann.succeed(["rule", "list", "--json"]) == before)
            #expect(try ann.succeed(["status"]).contains("pending:    0"), "nothing queued")

            // Undone by id through the daemon's history: bob's removal of the second rule, by ann.
            let byId = try ann.run(["undo", String(second.prefix(8))])
            #expect(byId.status == 0 && byId.stderr.contains("Undid the delete of rule"), "\(byId)")
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            #expect(try bob.succeed(["rule", "list"]).contains(String(second.prefix(8))), "restored on both machines")
        }
    }
}
