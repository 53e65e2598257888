import LedgerTestSupport
import TestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing

/// The same rule entered twice (on two machines, or twice on one) is shown as possible twins and charged once
/// while the question is open; keeping both charges both, merging keeps one (RecurringTwins).
@Suite struct RecurringTwinsStoryTests {
    /// `rule`, entered at second 1000.
    private static func entered(_ rule: RecurringRule) -> RecurringRule {
        var rule = rule
        rule.created = 1000
        return rule
    }

    /// The same rent as `rule`, under another id, entered again by hand a little later.
    private static func twin(of rule: RecurringRule) -> RecurringRule {
        var twin = rule
        twin.id = UUID()
        twin.created = (rule.created ?? 0) + 60
        return twin
    }

    /// The live expenses the daemon holds.
    private static func serverLive(_ daemon: TestDaemon) async throws -> [Record] {
        try await daemon.ledger.pull(PullRequest(since: 0, limit: 1000)).changes.filter { !$0.deleted }
    }

    private static func syncAll(_ daemon: TestDaemon, _ machines: [TestClient], on today: String) async throws {
        for machine in machines + machines { try await machine.sync(daemon, on: today) }
    }

    @Test("a second machine that never synced enters the same rent: its occurrences are held, the ledger charges each month once, both machines show the twins",
          arguments: [false, true])
    func aRuleEnteredAgainOnAMachineThatNeverSynced(twinHasLowerId: Bool) async throws {
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true)
        try laptop.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        #expect(try laptop.materialise("2026-03-20").created.count == 3)
        try await laptop.sync(daemon, on: "2026-03-20")

        var second = Self.twin(of: rule)
        second.id = twinHasLowerId ? UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1)) : second.id
        let phone = try TestClient("phone", persistent: true)
        try phone.ledger.put(.recurring, id: second.id, fields: second.fields)
        #expect(try phone.materialise("2026-03-20").created.count == 3, "made offline before the phone knows the ledger")
        try await Self.syncAll(daemon, [phone, laptop], on: "2026-03-20")

        #expect(try await Self.serverLive(daemon).count == 3, "each month charged once")
        for machine in [laptop, phone] {
            #expect(try machine.ledger.list().count == 3)
            #expect(Set(try machine.ledger.recurringTwins().groups.flatMap { $0 }) == [rule.id, second.id])
        }
        // A month later, offline: both machines make April's of the first rule, the same expense.
        let april = try laptop.materialise("2026-04-20").created.map(\.id) + phone.materialise("2026-04-20").created.map(\.id)
        #expect(april.count == 2 && Set(april).count == 1, "\(april)")
        try await Self.syncAll(daemon, [laptop, phone], on: "2026-04-20")
        #expect(try await Self.serverLive(daemon).count == 4)
        await daemon.stop()
    }

    @Test("two machines each enter the rent offline: the one that syncs second holds its own, and nothing is charged twice")
    func bothMachinesEnterItOffline() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        try await laptop.sync(daemon)
        try await phone.sync(daemon)
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        let second = Self.twin(of: rule)
        try laptop.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        try phone.ledger.put(.recurring, id: second.id, fields: second.fields)
        #expect(try laptop.materialise("2026-03-20").created.count == 3 && phone.materialise("2026-03-20").created.count == 3)
        try await Self.syncAll(daemon, [laptop, phone], on: "2026-03-20")
        #expect(try await Self.serverLive(daemon).count == 3)
        for machine in [laptop, phone] { #expect(try machine.ledger.list().count == 3 && machine.ledger.recurringTwins().held == [second.id]) }
        await daemon.stop()
    }

    @Test("keeping both charges both rules on every date, on every machine")
    func keepBoth() async throws {
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        let (daemon, laptop, phone) = try await RecurringSyncStoryTests.twoMachines(rule)
        let second = Self.twin(of: rule)
        try phone.ledger.put(.recurring, id: second.id, fields: second.fields)
        try await Self.syncAll(daemon, [laptop, phone], on: "2026-03-20")
        #expect(try await Self.serverLive(daemon).count == 3)
        let rules = try phone.data.recurringRules()
        try phone.ledger.keepRecurringRulesApart(rules[0], rules[1])
        try await Self.syncAll(daemon, [phone, laptop], on: "2026-03-20")
        #expect(try await Self.serverLive(daemon).count == 6)
        for machine in [laptop, phone] {
            #expect(try machine.ledger.recurringTwins().groups.isEmpty && machine.ledger.list().count == 6)
        }
        await daemon.stop()
    }

    @Test("merging keeps one rule; the other is removed with the occurrences that doubled a date")
    func merge() async throws {
        let daemon = try TestDaemon()
        let laptop = try TestClient("laptop", persistent: true), phone = try TestClient("phone", persistent: true)
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        let second = Self.twin(of: rule)
        // Both rules reach the ledger with their occurrences before anyone can see them together (each machine
        // pushes its own before pulling the other's): two charges a month.
        try laptop.ledger.put(.recurring, id: rule.id, fields: rule.fields)
        try phone.ledger.put(.recurring, id: second.id, fields: second.fields)
        try await laptop.sync(daemon, on: "2026-02-20")
        try await phone.sync(daemon, on: "2026-01-20")
        try await Self.syncAll(daemon, [laptop, phone], on: "2026-02-20")
        let doubled = try await Self.serverLive(daemon).count
        #expect(doubled >= 2)
        let twins = try laptop.ledger.recurringTwins()
        #expect(twins.groups.count == 1)
        let rules = try laptop.data.recurringRules()
        let kept = try #require(rules.first { $0.id == rule.id }), other = try #require(rules.first { $0.id == second.id })
        _ = try laptop.ledger.mergeRecurringRule(other, into: kept, today: try #require(CalendarDay("2026-02-20")))
        try await Self.syncAll(daemon, [laptop, phone], on: "2026-03-20")
        #expect(try await Self.serverLive(daemon).map(\.expense.date.description).sorted() == ["2026-01-05", "2026-02-05", "2026-03-05"])
        for machine in [laptop, phone] {
            #expect(try machine.data.recurringRules().map(\.id) == [rule.id] && machine.ledger.recurringTwins().groups.isEmpty)
        }
        await daemon.stop()
    }

    @Test("the same rule twice on one machine: the second makes nothing while the question is open")
    func twiceOnOneMachine() async throws {
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        let (daemon, laptop, _) = try await RecurringSyncStoryTests.twoMachines(rule)
        #expect(try laptop.materialise("2026-02-20").created.count == 2)
        let second = Self.twin(of: rule)
        try laptop.ledger.put(.recurring, id: second.id, fields: second.fields)
        #expect(try laptop.materialise("2026-03-20").created.map(\.date.description) == ["2026-03-05"])
        #expect(try laptop.ledger.recurringTwins().held == [second.id])
        await daemon.stop()
    }

    @Test("rules that differ in amount, currency, category, interval or start are not twins; kept apart they are not either")
    func whatLooksTheSame() throws {
        let rule = Self.entered(try RecurringSyncStoryTests.rent(start: "2026-01-05"))
        var changes: [RecurringRule] = []
        for change in 0..<5 {
            var other = Self.twin(of: rule)
            switch change {
            case 0: other.amount += 1
            case 1: other.currency = try #require(Currency(code: "USD"))
            case 2: other.category = "flat"
            case 3: other.every = 2
            default: other.start = try #require(CalendarDay("2026-01-06"))
            }
            changes.append(other)
        }
        for other in changes { #expect(RecurringTwins([rule, other]).groups.isEmpty) }
        var same = Self.twin(of: rule)
        same.note = "another note"
        #expect(RecurringTwins([rule, same]).groups.count == 1)
        same.distinctFrom = [rule.id]
        #expect(RecurringTwins([rule, same]).groups.isEmpty)
        let fields = try LedgerDataValidator.validate(kind: .recurring, id: same.id, fields: same.fields)
        #expect(try LedgerDataValidator.recurring(id: same.id, fields: fields).distinctFrom == [rule.id])
    }
}
