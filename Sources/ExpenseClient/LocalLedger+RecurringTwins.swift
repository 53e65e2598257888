import ExpenseCore
import Foundation

/// Possible twin recurring rules (``RecurringTwins``): the two ways to close the question, both ordinary changes
/// of rules and expenses that sync to every machine like any other, and the occurrences a held rule made before
/// its twin was known, taken back before they are sent.
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
        guard dataCache != nil else { return }
        var (first, second) = (first, second)
        first.distinctFrom.insert(second.id)
        second.distinctFrom.insert(first.id)
        for rule in [first, second] {
            guard rule.distinctFrom.count <= RecurringRule.maximumDistinct else {
                throw LedgerDataError.invalidValue(field: "distinctFrom",
                                                   detail: "a rule is kept apart from at most \(RecurringRule.maximumDistinct) others")
            }
            try put(.recurring, id: rule.id, fields: rule.fields)
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
        guard dataCache != nil else { return [] }
        let ledgerId = try occurrenceLedgerId().id
        var doubled: [LocalRecord] = []
        for date in other.occurrences(through: today) {
            guard let record = try store.record(id: other.expense(on: date, ledgerId: ledgerId).id), !record.deleted,
                  let keptRecord = try store.record(id: kept.expense(on: date, ledgerId: ledgerId).id), !keptRecord.deleted
            else { continue }
            doubled.append(record)
        }
        _ = try deleteRecord(id: other.id)
        for record in doubled { try delete(record) }
        return doubled.map(\.expense.id)
    }

    /// Takes back the occurrences of open twin groups that must not go out (see ``materialiseRecurring(today:limit:)``,
    /// which does the same first): for a sync, before it pushes.
    /// - Returns: the ids taken back.
    package func withdrawHeldOccurrences(today: CalendarDay) throws -> [UUID] {
        guard (try? ensureWritable()) != nil else { return [] }
        return try withdrawDoubledOccurrences(today: today, ledgerId: occurrenceLedgerId().id)
    }

    /// Occurrences of an open twin group to take back while they can be (live, never sent: one unsent,
    /// unnumbered create, no server copy): every such occurrence of a held rule (held means none is made), and
    /// the first rule's on a date another rule's occurrence, already sent, charges.
    func doubledOccurrences(today: CalendarDay, ledgerId: UUID) throws -> [(group: [UUID], id: UUID)] {
        guard let data = dataCache else { return [] }
        let rules = try data.recurringRules()
        let twins = RecurringTwins(rules)
        guard !twins.groups.isEmpty else { return [] }
        let byId = Dictionary(rules.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let queue = Dictionary(grouping: try store.pendingMutations(limit: Int.max), by: \.id)
        var doubled: [(group: [UUID], id: UUID)] = []
        for group in twins.groups {
            let members = group.compactMap { byId[$0] }
            var dates = Set<CalendarDay>()
            for rule in members { dates.formUnion(rule.occurrences(through: today)) }
            for date in dates.sorted() {
                var charged: [(rule: UUID, id: UUID, unsent: Bool)] = []
                for rule in members {
                    let id = RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: rule.id, date: date)
                    guard let record = try store.record(id: id), !record.deleted else { continue }
                    let entries = queue[id] ?? []
                    let unsent = record.baseVersion == 0 && entries.count == 1 && entries[0].ifAbsent && entries[0].mutationId == nil
                        && entries[0].state == .unsent
                    charged.append((rule.id, id, unsent))
                }
                let sentElsewhere = charged.contains { !$0.unsent }
                for entry in charged where entry.unsent && (twins.held.contains(entry.rule) || sentElsewhere) {
                    doubled.append((group, entry.id))
                }
            }
        }
        return doubled
    }

    /// Takes back ``doubledOccurrences(today:ledgerId:)`` (they leave no trace: to the ledger they never existed),
    /// and forgets how far every rule of their groups has made occurrences: the first rule then makes each date
    /// no other occurrence charges, and keeping both rules later makes the rest again.
    func withdrawDoubledOccurrences(today: CalendarDay, ledgerId: UUID) throws -> [UUID] {
        let doubled = try doubledOccurrences(today: today, ledgerId: ledgerId)
        guard !doubled.isEmpty else { return [] }
        try store.write { transaction in
            var marks = RecurringMarks(try transaction.metaValue(.recurringThrough))
            for (group, id) in doubled {
                for entry in try transaction.pending(for: id) { try transaction.removePending(position: entry.position) }
                try transaction.removeRecord(id)
                for rule in group { marks.through[rule] = nil }
            }
            try transaction.setMetaValue(marks.text, for: .recurringThrough)
        }
        return doubled.map(\.id)
    }
}
