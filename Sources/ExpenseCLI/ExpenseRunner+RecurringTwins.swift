import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

/// Possible twin recurring rules (``RecurringTwins``): the warning of `recurring add`, what `recurring list`,
/// `status` and `conflicts` show, and `recurring keep-both` and `recurring merge`, which close the question.
extension ExpenseRunner {
    /// `expense recurring keep-both ID ID`: two charges; both rules make their occurrences.
    func recurringKeepBoth() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let (first, second) = try twinPair(in: data)
        try ledger.keepRecurringRulesApart(first, second)
        tell(try ledger.materialiseRecurring(today: ledgerToday(data)))
        console.err("Kept both rules \(Self.short(first.id)) and \(Self.short(second.id)): each is charged.")
    }

    /// `expense recurring merge KEEP OTHER`: one charge entered twice; OTHER is removed with its occurrences that
    /// doubled a date KEEP charges.
    func recurringMerge() throws {
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let (kept, other) = try twinPair(in: data)
        let deleted = try ledger.mergeRecurringRule(other, into: kept, today: ledgerToday(data))
        tell(try ledger.materialiseRecurring(today: ledgerToday(data)))
        let plural = deleted.count == 1 ? "" : "s"
        console.err("Merged the rule \(Self.short(other.id)) into \(Self.short(kept.id)): removed it and \(deleted.count) "
                    + "occurrence\(plural) that charged a date twice.")
    }

    /// The two rules named by the command's arguments, which must look the same (amount, currency, category,
    /// interval and start).
    private func twinPair(in data: LedgerDataCache) throws -> (RecurringRule, RecurringRule) {
        let first = try findRule(command[ExpenseArguments.id] ?? "", in: data)
        let second = try findRule(command[ExpenseArguments.otherId] ?? "", in: data)
        guard first.id != second.id else { throw usage("Give two different rules") }
        guard RecurringTwins.lookTheSame(first, second) else {
            throw CommandFailure(.dataError, "Error: not_twins: the rules \(Self.short(first.id)) and \(Self.short(second.id)) differ in "
                                 + "amount, currency, category, interval or start; they are not possible twins")
        }
        return (first, second)
    }

    /// After `recurring add`: the warning when the new rule looks the same as a live one (it is held, or holds
    /// the other, until the person says which).
    func warnAboutTwins(of rule: RecurringRule, in ledger: LocalLedger) {
        guard let twins = try? ledger.recurringTwins(), let others = twins.others[rule.id], let other = others.first else { return }
        console.err("Warning: this rule looks the same as \(others.map(Self.short).joined(separator: ", ")) (amount, currency, "
                    + "category, interval and start): possible twins, and only the one entered first makes occurrences. "
                    + "Run `expense recurring keep-both \(Self.short(other)) \(Self.short(rule.id))` if both are to be charged, "
                    + "or `expense recurring merge \(Self.short(other)) \(Self.short(rule.id))` to keep one.")
    }

    /// The note `recurring list` puts after a rule of an open twin group.
    static func twinNote(_ id: UUID, _ twins: RecurringTwins) -> String {
        guard let others = twins.others[id] else { return "" }
        return "  possible twin of \(others.map(short).joined(separator: ", "))" + (twins.held.contains(id) ? " (held)" : "")
    }

    /// What to do about open twin groups, for standard error.
    static func twinAdvice(_ twins: RecurringTwins) -> String {
        var text = "Possible twin rules (the same amount, currency, category, interval and start): only the first of each "
            + "makes occurrences. Settle each pair with `expense recurring keep-both ID ID` (two charges) or "
            + "`expense recurring merge KEEP OTHER` (one):"
        for group in twins.groups { text += "\n  " + group.map(short).joined(separator: "  ") + "  (\(short(group[0])) goes on)" }
        return text
    }

    /// The lines `status` and `conflicts` add for open twin groups (empty when there are none).
    func twinStatusLines(_ ledger: LocalLedger) -> [String] {
        guard let twins = try? ledger.recurringTwins(), !twins.groups.isEmpty else { return [] }
        return twins.groups.map { group in
            "  possible twins  " + group.map(Self.short).joined(separator: " ") + "  (recurring rules; \(Self.short(group[0])) goes on, "
                + "the others are held)"
        }
    }

    static func short(_ id: UUID) -> String { String(UUIDText.lowercased(id).prefix(8)) }
}
