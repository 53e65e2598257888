import ExpenseCore
import Foundation

/// Possible twin recurring rules (``RecurringTwins``): the two ways to close the question. Both are ordinary
/// changes of rules and expenses, so they sync to every machine like any other.
extension LocalLedger {
    /// The open twin groups among this cache's live rules (none for a store without rules).
    package func recurringTwins() throws -> RecurringTwins {
        RecurringTwins(try dataCache?.recurringRules() ?? [])
    }

    /// `expense recurring keep-both A B`: the two rules are two charges. Each names the other in its
    /// `distinctFrom` (so every machine stops holding either), and this cache forgets how far it has made both,
    /// so its next run makes what was held back or skipped for the other (dates already held are left as they are).
    package func keepRecurringRulesApart(_ first: RecurringRule, _ second: RecurringRule) throws {
        try ensureWritable()
        guard let data = dataCache else { return }
        var (first, second) = (first, second)
        first.distinctFrom.insert(second.id)
        second.distinctFrom.insert(first.id)
        for rule in [first, second] {
            guard rule.distinctFrom.count <= RecurringRule.maximumDistinct else {
                throw LedgerDataError.invalidValue(field: "distinctFrom",
                                                   detail: "a rule is kept apart from at most \(RecurringRule.maximumDistinct) others")
            }
            try data.put(.recurring, id: rule.id, fields: rule.fields)
        }
        try store.write { transaction in
            var marks = RecurringMarks(try transaction.metaValue(.recurringThrough))
            marks.through[first.id] = nil
            marks.through[second.id] = nil
            try transaction.setMetaValue(marks.text, for: .recurringThrough)
        }
    }

    /// `expense recurring merge KEEP OTHER`: one charge entered twice. `other` is removed, and each of its live
    /// occurrences up to `today` on a date `kept` also holds one is deleted; an occurrence of `other` on a date
    /// `kept` does not hold stays (it is that date's one charge).
    /// - Returns: the ids of the occurrences deleted.
    package func mergeRecurringRule(_ other: RecurringRule, into kept: RecurringRule, today: CalendarDay) throws -> [UUID] {
        try ensureWritable()
        guard let data = dataCache else { return [] }
        let ledgerId = try occurrenceLedgerId().id
        var doubled: [LocalRecord] = []
        for date in other.occurrences(through: today) {
            guard let record = try store.record(id: other.expense(on: date, ledgerId: ledgerId).id), !record.deleted,
                  let keptRecord = try store.record(id: kept.expense(on: date, ledgerId: ledgerId).id), !keptRecord.deleted
            else { continue }
            doubled.append(record)
        }
        _ = try data.delete(id: other.id)
        for record in doubled { try delete(record) }
        return doubled.map(\.expense.id)
    }
}
