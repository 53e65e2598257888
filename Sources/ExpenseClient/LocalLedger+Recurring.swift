import ExpenseCore
import ExpenseProtocol
import Foundation

/// What one materialisation of recurring occurrences did (``LocalLedger/materialiseRecurring(today:limit:)``).
package struct RecurringRun: Sendable, Equatable {
    /// The occurrences created as expenses, oldest first per rule.
    package var created: [Expense] = []
    /// Live occurrences of dates their rule now skips, deleted (a skip made on another machine after this one
    /// materialised the date).
    package var deleted: [UUID] = []
    /// The rules with more occurrences due than one run creates (``LocalLedger/recurringCatchUpLimit``), with the
    /// date of the last occurrence created: the next run continues after it.
    package var limited: [Limited] = []
    /// The cache is bound to no ledger yet (never synced): nothing is materialised, because an occurrence's id
    /// is derived from the ledger's id (Protocol.md §10.4).
    package var unbound = false

    /// A rule whose catch-up stopped at the limit.
    package struct Limited: Sendable, Equatable {
        package var rule: UUID
        /// The date of the last occurrence created.
        package var through: CalendarDay
    }

    package init() {}

    /// Whether anything was written.
    package var changed: Bool { !created.isEmpty || !deleted.isEmpty }
}

/// Recurring rules become expenses (Protocol.md §10.4): every occurrence due up to and including "today" (the
/// ledger's time zone) is created once, on whichever machine runs first, offline included, with an id derived
/// from (ledger id, rule id, date) and queued with `ifAbsent`, so every machine makes the same expense and the
/// daemon keeps the first one, edited or deleted as it may be since.
///
/// What this cache has materialised is remembered per rule as the last date it looked at (the store's
/// `recurring_through` setting), so a read command costs O(rules), not O(expenses), and an occurrence deleted
/// here is never looked at again. A date after that mark whose id the cache already holds (pulled from another
/// machine, live, edited or a tombstone) is left as it is.
///
/// **Before the first sync** the cache knows no ledger id, so it materialises nothing (``RecurringRun/unbound``):
/// an id made up locally would differ from the one every other machine derives, and the same occurrence would
/// become two expenses. The first sync binds the cache and materialises before it pushes.
extension LocalLedger {
    /// The most occurrences one rule creates in one run (a rule first seen after a long offline period catches
    /// up this many per command, oldest first, and says so).
    package static let recurringCatchUpLimit = 100

    /// The rules, budgets and settings of this cache, or `nil` for a store without them (the JSON cache).
    package var dataCache: LedgerDataCache? { try? LedgerDataCache(store: store) }

    /// Whether ``materialiseRecurring(today:limit:)`` would write anything: a read, no transaction, O(rules) when
    /// nothing is due.
    package func recurringDue(today: CalendarDay) throws -> Bool {
        guard let plan = try recurringPlan(today: today, limit: Self.recurringCatchUpLimit) else { return false }
        return plan.contains { !$0.create.isEmpty || !$0.delete.isEmpty || $0.through != $0.previous }
    }

    /// Creates the occurrences due up to `today` (at most `limit` per rule) and deletes the live occurrences of
    /// skipped dates, in one transaction. Nothing on a viewer's cache (it cannot push) or an unbound one.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` (nothing stored), ``StoreError``.
    @discardableResult
    package func materialiseRecurring(today: CalendarDay, limit: Int = recurringCatchUpLimit) throws -> RecurringRun {
        var run = RecurringRun()
        guard (try? ensureWritable()) != nil else { return run }
        guard let ledgerId = try boundLedgerId() else {
            run.unbound = try !(dataCache?.recurringRules().isEmpty ?? true)
            return run
        }
        guard let plan = try recurringPlan(today: today, limit: limit, ledgerId: ledgerId),
              plan.contains(where: { !$0.create.isEmpty || !$0.delete.isEmpty || $0.through != $0.previous }) else { return run }
        try store.write { transaction in
            var marks = RecurringMarks(try transaction.metaValue(.recurringThrough))
            var created: [Expense] = []
            for step in plan {
                for expense in step.create where try transaction.record(id: expense.id) == nil { created.append(expense) }
                for id in step.delete {
                    guard let record = try transaction.record(id: id), !record.deleted else { continue }
                    try stage(PendingMutation(type: .delete, id: id, baseVersion: 0), in: transaction)
                    run.deleted.append(id)
                }
                marks.through[step.rule] = step.through
                if step.limited, let through = step.through { run.limited.append(RecurringRun.Limited(rule: step.rule, through: through)) }
            }
            try checkTotals(adding: created)
            for expense in created {
                var fields = expense.draft
                fields.id = nil
                try transaction.putRecord(LocalRecord(expense: expense))
                try transaction.appendPending(PendingMutation(type: .put, id: expense.id, baseVersion: 0, fields: fields, ifAbsent: true))
            }
            try transaction.setMetaValue(marks.text, for: .recurringThrough)
            run.created = created
        }
        return run
    }

    /// The ledger id the cache is bound to, if any.
    package func boundLedgerId() throws -> UUID? {
        try store.metaValue(.syncedLedgerId).flatMap(UUIDText.parse)
    }

    private struct Step {
        var rule: UUID
        var create: [Expense]
        var delete: [UUID]
        var previous: CalendarDay?
        /// The new mark; `nil` drops it (a removed rule).
        var through: CalendarDay?
        var limited: Bool
    }

    /// Per live rule: the occurrences after its mark up to `today` the cache does not hold, and the live
    /// occurrences of its skipped dates; `nil` without rules or a ledger id.
    private func recurringPlan(today: CalendarDay, limit: Int, ledgerId known: UUID? = nil) throws -> [Step]? {
        guard let cache = dataCache else { return nil }
        let rules = try cache.recurringRules()
        guard !rules.isEmpty, let ledgerId = try known ?? boundLedgerId() else { return nil }
        let marks = RecurringMarks(try store.metaValue(.recurringThrough))
        return try rules.map { rule in
            let previous = marks.through[rule.id]
            var create: [Expense] = []
            var through = max(today, previous ?? today)
            var limited = false
            let after = previous.flatMap { $0.adding(days: 1) }
            if previous.map({ $0 < today }) ?? true {
                for date in rule.occurrences(from: after, through: today) {
                    let expense = rule.expense(on: date, ledgerId: ledgerId)
                    guard try store.record(id: expense.id) == nil else { continue }
                    if create.count == limit {
                        limited = true
                        through = create.last?.date ?? today
                        break
                    }
                    create.append(expense)
                }
            }
            let delete = try rule.skips.filter { $0 <= today }.sorted().compactMap { date -> UUID? in
                let id = RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: rule.id, date: date)
                return try store.record(id: id).flatMap { $0.deleted ? nil : id }
            }
            return Step(rule: rule.id, create: create, delete: delete, previous: previous, through: through, limited: limited)
        } + marks.through.keys.filter { id in !rules.contains { $0.id == id } }.map { id in
            // A removed rule's mark is dropped (written once); a removed rule creates nothing more.
            Step(rule: id, create: [], delete: [], previous: marks.through[id], through: nil, limited: false)
        }
    }
}

/// Per rule, the last date this cache has materialised through, kept as lines `RULE-ID YYYY-MM-DD`.
struct RecurringMarks {
    var through: [UUID: CalendarDay] = [:]

    init(_ text: String?) {
        for line in (text ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let id = UUIDText.parse(String(parts[0])),
                  let day = try? ExpenseValidator.validateDate(String(parts[1])) else { continue }
            through[id] = day
        }
    }

    var text: String? {
        through.isEmpty ? nil : through.map { "\(UUIDText.lowercased($0.key)) \($0.value)" }.sorted().joined(separator: "\n")
    }
}

extension LedgerDataCache {
    /// The live recurring rules, by start then id (a record the validator refuses is left out).
    package func recurringRules() throws -> [RecurringRule] {
        try records(.recurring).compactMap { try? LedgerDataValidator.recurring(id: $0.id, fields: $0.fields) }
            .sorted { ($0.start, UUIDText.lowercased($0.id)) < ($1.start, UUIDText.lowercased($1.id)) }
    }

    /// "Today" for budgets and rules at `now`: the calendar day in the ledger's configured time zone
    /// (`expense config set timezone`, synced), else the local one (Protocol.md §10.5).
    package func today(now: Date) throws -> CalendarDay {
        let setting = try record(id: LedgerSetting.id(.timezone))
        let zone = setting.flatMap { $0.deleted ? nil : $0.fields["value"] }.flatMap { value -> TimeZone? in
            if case .text(let name) = value { return LedgerSetting.timeZone(name) }
            return nil
        }
        return CalendarDay.today(now: now, timeZone: zone ?? .current)
    }
}
