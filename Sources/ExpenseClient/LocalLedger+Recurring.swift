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
    /// Occurrences of possible twin rules (``RecurringTwins``) taken back before they were ever sent, because
    /// another rule of their group charges the same date: the date is charged once.
    package var withdrawn: [UUID] = []

    /// A rule whose catch-up stopped at the limit.
    package struct Limited: Sendable, Equatable {
        package var rule: UUID
        /// The date of the last occurrence created.
        package var through: CalendarDay
    }

    package init() {}

    /// Whether anything was written.
    package var changed: Bool { !created.isEmpty || !deleted.isEmpty || !withdrawn.isEmpty }
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
/// **Before the first sync** the cache knows no ledger id. It materialises all the same (someone who keeps
/// expenses on one machine gets their rent), deriving ids from a provisional ledger id made once and kept in the
/// store (``StoreMetaKey/provisionalLedgerId``). The sync that binds the cache to a ledger re-keys every
/// occurrence it made that way to the id derived from the real ledger id, in the binding's transaction and before
/// anything is pushed (``rekeyOccurrences(to:in:)``), so a machine of that ledger holding the same rule derives
/// the same ids: nothing is doubled, and nothing made before binding is lost.
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
        return try plan.contains { !$0.create.isEmpty || !$0.delete.isEmpty || $0.through != $0.previous }
            || !doubledOccurrences(today: today, ledgerId: occurrenceLedgerId().id).isEmpty
    }

    /// Creates the occurrences due up to `today` (at most `limit` per rule) and deletes the live occurrences of
    /// skipped dates, in one transaction. Nothing on a viewer's cache (it cannot push) or an unbound one.
    /// - Throws: ``LedgerLimitError/totalOverflow(currency:)`` (nothing stored), ``StoreError``.
    @discardableResult
    package func materialiseRecurring(today: CalendarDay, limit: Int = recurringCatchUpLimit) throws -> RecurringRun {
        var run = RecurringRun()
        guard (try? ensureWritable()) != nil else { return run }
        let (ledgerId, provisional) = try occurrenceLedgerId()
        run.withdrawn = try withdrawDoubledOccurrences(today: today, ledgerId: ledgerId)
        guard let plan = try recurringPlan(today: today, limit: limit, ledgerId: ledgerId),
              plan.contains(where: { !$0.create.isEmpty || !$0.delete.isEmpty || $0.through != $0.previous }) else { return run }
        try store.write { transaction in
            if provisional {
                // Made here, kept for every later run until the binding re-keys; another process that made one
                // first wins, and this run waits for the next command.
                let stored = try transaction.metaValue(.provisionalLedgerId).flatMap(UUIDText.parse)
                guard try transaction.metaValue(.syncedLedgerId) == nil, stored == nil || stored == ledgerId else { return }
                if stored == nil { try transaction.setMetaValue(UUIDText.lowercased(ledgerId), for: .provisionalLedgerId) }
            }
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

    /// The ledger id occurrences are derived from: the bound one, else the provisional one (a new one when the
    /// store has none yet; `provisional` says it is not the bound one).
    func occurrenceLedgerId() throws -> (id: UUID, provisional: Bool) {
        if let bound = try boundLedgerId() { return (bound, false) }
        return (try store.metaValue(.provisionalLedgerId).flatMap(UUIDText.parse) ?? UUID(), true)
    }

    /// At the binding (inside its transaction, before any push): every occurrence made before it, derived from
    /// the provisional ledger id, takes the id derived from `ledgerId`, with its queue entries (its create, and
    /// any edit or delete made since); then the provisional id is dropped. The cache has never synced, so the
    /// daemon has seen none of these ids.
    func rekeyOccurrences(to ledgerId: UUID, in transaction: any StoreTransaction) throws {
        guard let provisional = try transaction.metaValue(.provisionalLedgerId).flatMap(UUIDText.parse) else { return }
        let marks = RecurringMarks(try transaction.metaValue(.recurringThrough))
        // A rule removed before binding has no mark left; its occurrences keep their ids (no machine derives
        // them: the rule never left this cache alive).
        for rule in try dataCache?.recurringRules() ?? [] {
            guard let through = marks.through[rule.id] else { continue }
            let dates = Set(rule.occurrences(through: through)).union(rule.skips.filter { $0 <= through })
            for date in dates {
                let old = RecurringRule.occurrenceId(ledgerId: provisional, ruleId: rule.id, date: date)
                guard try transaction.record(id: old) != nil else { continue }
                let new = RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: rule.id, date: date)
                try transaction.renameRecord(old, to: new)
                for var entry in try transaction.pending(for: old) {
                    entry.id = new
                    try transaction.updatePending(entry)
                }
            }
        }
        try transaction.setMetaValue(nil, for: .provisionalLedgerId)
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
        guard !rules.isEmpty else { return nil }
        let ledgerId = try known ?? occurrenceLedgerId().id
        let marks = RecurringMarks(try store.metaValue(.recurringThrough))
        let twins = RecurringTwins(rules)
        return try rules.map { rule in
            let previous = marks.through[rule.id]
            var create: [Expense] = []
            var through = max(today, previous ?? today)
            var limited = false
            let after = previous.flatMap { $0.adding(days: 1) }
            if !twins.held.contains(rule.id), previous.map({ $0 < today }) ?? true {
                for date in rule.occurrences(from: after, through: today) {
                    let expense = rule.expense(on: date, ledgerId: ledgerId)
                    guard try store.record(id: expense.id) == nil else { continue }
                    // A date a twin already charged (or deleted) is not charged again.
                    let charged = try twins.others[rule.id, default: []].contains { twin in
                        try store.record(id: RecurringRule.occurrenceId(ledgerId: ledgerId, ruleId: twin, date: date)) != nil
                    }
                    guard !charged else { continue }
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
            // A held twin makes nothing and keeps its mark, so keeping both later makes what it held back.
            return Step(rule: rule.id, create: create, delete: delete, previous: previous,
                        through: twins.held.contains(rule.id) ? previous : through, limited: limited)
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
