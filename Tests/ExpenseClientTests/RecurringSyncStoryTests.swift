import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

extension TestClient {
    /// A sync that materialises the occurrences due on `today` (UTC noon of that day), as `expense sync` does.
    @discardableResult
    func sync(_ daemon: TestDaemon, on today: String) async throws -> SyncEngine.Report {
        let now = try RecurringSyncStoryTests.noon(today)
        var dependencies = self.dependencies
        dependencies.clock = { now }
        var engine = engine(daemon, dependencies: dependencies)
        engine.configuration.materialisesRecurring = true
        return try await onOwnThread { [engine] in try engine.sync() }
    }

    var data: LedgerDataCache { get throws { try LedgerDataCache(store: ledger.store) } }

    /// Materialises offline, as any read command does.
    @discardableResult
    func materialise(_ today: String, limit: Int = LocalLedger.recurringCatchUpLimit) throws -> RecurringRun {
        try ledger.materialiseRecurring(today: try #require(CalendarDay(today)), limit: limit)
    }

    /// The live expenses by date (one per date expected).
    func byDate() throws -> [String: Expense] {
        Dictionary(try ledger.list().map { ($0.date.description, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// Recurring occurrences materialised as expenses on several machines (Protocol.md §10.4), through an in-process
/// daemon: the same occurrence is one expense everywhere, edits and deletes stay, skips never appear.
@Suite struct RecurringSyncStoryTests {
    static func noon(_ day: String) throws -> Date {
        let parsed = try #require(CalendarDay(day))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        return try #require(calendar.date(from: DateComponents(year: parsed.year, month: parsed.month, day: parsed.day, hour: 12)))
    }

    static func rent(start: String = "2026-01-31", every: Int = 1, unit: RecurrenceUnit = .month,
                     monthEnd: MonthEndPolicy = .clamp, end: RecurrenceEnd = .never) throws -> RecurringRule {
        RecurringRule(id: UUID(), amount: 95_000, currency: try #require(Currency(code: "EUR")), category: "rent", note: "flat",
                      every: every, unit: unit, start: try #require(CalendarDay(start)), end: end, monthEnd: monthEnd, skips: [])
    }

    /// Two persistent caches that have both synced `rule` (so both are bound to the daemon's ledger).
    static func twoMachines(_ rule: RecurringRule) async throws -> (TestDaemon, TestClient, TestClient) {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        try laptop.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        try await laptop.sync(daemon)
        try await phone.sync(daemon)
        #expect(try phone.data.recurringRules().map(\.id) == [rule.id])
        return (daemon, laptop, phone)
    }

    @Test("two offline machines materialise the same rule, one skipping an occurrence and the other editing one: after sync both hold one expense per occurrence, the edit kept, the skipped one gone, no conflict",
          arguments: [true, false])
    func twoMachinesConverge(laptopFirst: Bool) async throws {
        let rule = try Self.rent()
        let (daemon, laptop, phone) = try await Self.twoMachines(rule)
        // Offline: the laptop materialises Jan 31, Feb 28 (clamped) and Mar 31, and edits March's.
        #expect(try laptop.materialise("2026-04-15").created.map(\.date.description) == ["2026-01-31", "2026-02-28", "2026-03-31"])
        let march = try #require(try laptop.byDate()["2026-03-31"])
        try laptop.edit(march.id, ExpenseDraft(note: "rent, paid late"))
        // Offline: the phone skips February, then materialises.
        var skipping = rule
        skipping.skips = [try #require(CalendarDay("2026-02-28"))]
        try phone.ledger.put(.recurring, id: rule.id, fields: skipping.fields)
        #expect(try phone.materialise("2026-04-15").created.map(\.date.description) == ["2026-01-31", "2026-03-31"])
        #expect(try phone.byDate()["2026-03-31"]?.id == march.id)  // the same id, derived on both machines

        let order = laptopFirst ? [laptop, phone, laptop, phone] : [phone, laptop, phone, laptop]
        var conflicts = 0
        for machine in order { conflicts += try await machine.sync(daemon, on: "2026-04-15").newConflicts }
        #expect(conflicts == 0)
        for machine in [laptop, phone] {
            let shown = try machine.byDate()
            #expect(shown.keys.sorted() == ["2026-01-31", "2026-03-31"], "\(machine.name)")
            #expect(shown["2026-03-31"]?.note == "rent, paid late", "\(machine.name)")
            #expect(shown["2026-01-31"]?.amount == 95_000)
            #expect(try machine.ledger.store.pendingCount() == 0 && machine.ledger.store.conflicts().isEmpty)
        }
        let onDaemon = liveExpenses(try await daemon.records())
        #expect(onDaemon.count == 2)
        #expect(onDaemon[march.id]?.note == "rent, paid late")
        await daemon.stop()
    }

    @Test("a monthly rule from Jan 31 materialises Feb 28 with clamp and no February with skip, then Mar 31 and Apr 30")
    func monthEnds() async throws {
        for (policy, expected) in [(MonthEndPolicy.clamp, ["2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"]),
                                   (.skip, ["2026-01-31", "2026-03-31"])] {
            let rule = try Self.rent(monthEnd: policy)
            let (daemon, laptop, _) = try await Self.twoMachines(rule)
            #expect(try laptop.materialise("2026-05-15").created.map(\.date.description) == expected)
            #expect(try laptop.byDate().keys.sorted() == expected)
            await daemon.stop()
        }
    }

    @Test("the ledger's time zone decides which occurrences are due on both sides of midnight UTC")
    func timeZones() async throws {
        let rule = try Self.rent(start: "2026-03-01")
        // 23:30 UTC on Feb 28: already Mar 1 in Berlin, still Feb 28 in New York.
        let instant = try Self.noon("2026-02-28").addingTimeInterval(11.5 * 3600)
        for (zone, due) in [("Europe/Berlin", ["2026-03-01"]), ("America/New_York", [])] {
            let (daemon, laptop, phone) = try await Self.twoMachines(rule)
            try laptop.ledger.put(.setting, id: LedgerSetting.id(.timezone), fields: LedgerSetting(name: .timezone, value: zone).fields)
            try await laptop.sync(daemon)
            try await phone.sync(daemon)
            for machine in [laptop, phone] {
                let today = try machine.data.today(now: instant)
                #expect(try machine.ledger.materialiseRecurring(today: today).created.map(\.date.description) == due, "\(zone)")
            }
            await daemon.stop()
        }
    }

    @Test("a deleted occurrence stays deleted: materialising again on either machine, or on a third that never saw it, does not bring it back")
    func deleteSurvives() async throws {
        let rule = try Self.rent(start: "2026-01-10")
        let (daemon, laptop, phone) = try await Self.twoMachines(rule)
        try await laptop.sync(daemon, on: "2026-03-15")
        try await phone.sync(daemon, on: "2026-03-15")
        #expect(try phone.byDate().keys.sorted() == ["2026-01-10", "2026-02-10", "2026-03-10"])
        let february = try #require(try phone.byDate()["2026-02-10"])
        try phone.delete(february.id)
        try await phone.sync(daemon, on: "2026-04-15")
        try await laptop.sync(daemon, on: "2026-04-15")
        try await phone.sync(daemon, on: "2026-04-15")
        let third = try TestClient("desktop", persistent: true)
        try await third.sync(daemon, on: "2026-04-15")
        for machine in [laptop, phone, third] {
            #expect(try machine.materialise("2026-04-20").created.isEmpty, "\(machine.name)")
            #expect(try machine.byDate().keys.sorted() == ["2026-01-10", "2026-03-10", "2026-04-10"], "\(machine.name)")
            #expect(try machine.ledger.store.pendingCount() == 0)
        }
        #expect(liveExpenses(try await daemon.records())[february.id] == nil)
        await daemon.stop()
    }

    @Test("an occurrence deleted offline before its create was sent is deleted on the daemon too, even when another machine created it first")
    func offlineDeleteOfUnsentOccurrence() async throws {
        let rule = try Self.rent(start: "2026-01-10")
        let (daemon, laptop, phone) = try await Self.twoMachines(rule)
        try laptop.materialise("2026-02-15")
        try phone.materialise("2026-02-15")
        let january = try #require(try phone.byDate()["2026-01-10"])
        try phone.delete(january.id)
        #expect(try phone.materialise("2026-02-20").created.isEmpty)  // not recreated locally
        try await laptop.sync(daemon, on: "2026-02-20")  // the laptop's create reaches the daemon first
        #expect(try await phone.sync(daemon, on: "2026-02-20").newConflicts == 0)
        try await laptop.sync(daemon, on: "2026-02-20")
        for machine in [laptop, phone] { #expect(try machine.byDate().keys.sorted() == ["2026-02-10"], "\(machine.name)") }
        await daemon.stop()
    }

    @Test("catch-up is bounded: 100 occurrences of a rule per run, oldest first, continuing where it stopped")
    func boundedCatchUp() async throws {
        let rule = try Self.rent(start: "2025-06-01", unit: .day)  // 250 daily occurrences up to 2026-02-05
        let (daemon, laptop, _) = try await Self.twoMachines(rule)
        let first = try laptop.materialise("2026-02-05")
        #expect(first.created.count == 100 && first.created.first?.date.description == "2025-06-01")
        #expect(first.limited.map(\.rule) == [rule.id] && first.limited.first?.through.description == "2025-09-08")
        #expect(try laptop.materialise("2026-02-05").created.first?.date.description == "2025-09-09")
        let last = try laptop.materialise("2026-02-05")
        #expect(last.created.count == 50 && last.limited.isEmpty)
        #expect(try laptop.materialise("2026-02-05").created.isEmpty)
        #expect(try laptop.ledger.list().count == 250)
        await daemon.stop()
    }

    @Test("a protocol-1 client that never asks for other kinds sees the occurrences as the plain expenses they are")
    func protocolOneClient() async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let (daemon, laptop, _) = try await Self.twoMachines(rule)
        try await laptop.sync(daemon, on: "2026-02-10")
        let old = try TestClient("old")  // in memory: no data cache, no `kinds` in its hello
        try await old.sync(daemon)
        #expect(try old.ledger.list().map(\.date.description) == ["2026-01-05", "2026-02-05"])
        #expect(try old.ledger.list().allSatisfy { $0.category == "rent" && $0.amount == 95_000 })
        let page = try await daemon.ledger.pull(PullRequest(since: 0, limit: 100))
        #expect(page.changes.count == 2 && page.dataChanges.isEmpty)
        await daemon.stop()
    }

    @Test("a removed rule creates nothing more; occurrences made before stay")
    func removedRule() async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let (daemon, laptop, _) = try await Self.twoMachines(rule)
        #expect(try laptop.materialise("2026-01-20").created.count == 1)
        #expect(try laptop.ledger.deleteRecord(id: rule.id))
        #expect(try laptop.materialise("2026-06-20").created.isEmpty)
        #expect(try laptop.ledger.list().count == 1)
        await daemon.stop()
    }

    @Test("a cache that never synced creates its occurrences offline, as often as it is used, and never again for the same date")
    func neverSyncedCacheMaterialises() async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let alone = try TestClient("alone", persistent: true)
        try alone.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        #expect(try alone.materialise("2026-03-20").created.map(\.date.description) == ["2026-01-05", "2026-02-05", "2026-03-05"])
        #expect(try alone.materialise("2026-03-20").created.isEmpty)
        #expect(try alone.materialise("2026-04-05").created.map(\.date.description) == ["2026-04-05"])
        #expect(try alone.ledger.list().count == 4)
    }

    @Test("occurrences made before the first sync are not doubled when the cache binds to a ledger where another machine made them",
          arguments: [false, true])
    func occurrencesMadeBeforeBindingMeetTheLedgers(editedBeforeBinding: Bool) async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let (daemon, laptop, _) = try await Self.twoMachines(rule)
        #expect(try laptop.materialise("2026-02-20").created.count == 2)
        try await laptop.sync(daemon, on: "2026-02-20")
        // A machine that has never synced holds the same rule (its cache was copied from the laptop's data before
        // the laptop ever synced, or the rule came by the same id) and makes January and February offline.
        let fresh = try TestClient("fresh", persistent: true)
        try fresh.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        #expect(try fresh.materialise("2026-03-10").created.map(\.date.description) == ["2026-01-05", "2026-02-05", "2026-03-05"])
        if editedBeforeBinding {
            let february = try #require(try fresh.byDate()["2026-02-05"])
            try fresh.edit(february.id, ExpenseDraft(note: "paid in cash"))
            let march = try #require(try fresh.byDate()["2026-03-05"])
            try fresh.delete(march.id)
        }
        try await fresh.sync(daemon, on: "2026-03-10")
        try await laptop.sync(daemon, on: "2026-03-10")
        try await fresh.sync(daemon, on: "2026-03-10")
        let page = try await daemon.ledger.pull(PullRequest(since: 0, limit: 100))
        let live = page.changes.filter { !$0.deleted }
        let expected = editedBeforeBinding ? ["2026-01-05", "2026-02-05"] : ["2026-01-05", "2026-02-05", "2026-03-05"]
        #expect(live.map(\.expense.date.description).sorted() == expected, "\(page.changes)")
        for machine in [laptop, fresh] {
            #expect(try machine.ledger.list().map(\.date.description).sorted() == expected)
            #expect(try machine.ledger.store.pendingMutations(limit: 10).isEmpty && machine.ledger.store.conflicts().isEmpty)
            if editedBeforeBinding { #expect(try machine.byDate()["2026-02-05"]?.note == "paid in cash") }
        }
        await daemon.stop()
    }

    @Test("occurrences made before the first sync keep their ids' rule when the cache binds to a new ledger: another machine derives the same ids")
    func occurrencesMadeBeforeBindingToANewLedger() async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let daemon = try TestDaemon()
        let alone = try TestClient("alone", persistent: true)
        try alone.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        #expect(try alone.materialise("2026-02-20").created.count == 2)
        try await alone.sync(daemon, on: "2026-02-20")
        let phone = try TestClient("phone", persistent: true)
        try await phone.sync(daemon, on: "2026-02-20")
        #expect(try phone.materialise("2026-02-20").created.isEmpty)
        try await phone.sync(daemon, on: "2026-02-20")
        let page = try await daemon.ledger.pull(PullRequest(since: 0, limit: 100))
        #expect(page.changes.filter { !$0.deleted }.count == 2, "\(page.changes)")
        #expect(try phone.ledger.list().count == 2 && alone.ledger.list().count == 2)
        await daemon.stop()
    }

    @Test("an occurrence's create is queued with ifAbsent; a later edit is queued after it at version 1, never merged into it")
    func outboxEntries() async throws {
        let rule = try Self.rent(start: "2026-01-05")
        let (daemon, laptop, _) = try await Self.twoMachines(rule)
        let created = try #require(try laptop.materialise("2026-01-20").created.first)
        try laptop.edit(created.id, ExpenseDraft(amount: 90_000, currency: "EUR"))
        try laptop.edit(created.id, ExpenseDraft(note: "cheaper"))
        let queue = try laptop.ledger.store.pendingMutations(limit: 10)
        #expect(queue.map(\.ifAbsent) == [true, false])
        #expect(queue.map(\.baseVersion) == [0, 1])
        #expect(queue[0].fields.amount == 95_000 && queue[1].fields.amount == 90_000 && queue[1].fields.note == "cheaper")
        #expect(queue[0].mutation(mutationId: 7).ifAbsent && !queue[1].mutation(mutationId: 8).ifAbsent)
        await daemon.stop()
    }
}
