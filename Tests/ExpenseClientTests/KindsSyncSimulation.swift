import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import TestSupport

/// The seeded random mix of ``RandomizedSyncTests/budgetsRulesAndSettingsConverge()``, run on a thread of its own:
/// people on three editors' machines set, change and remove budgets, recurring rules and the ledger's time zone (often
/// the same record several times between syncs, and the same records on several machines), add and change a few
/// expenses beside them, sync, and settle conflicts with `--mine` or `--theirs`; a viewer tries the same and is refused.
///
/// It keeps a model of what each editor's person still wants the daemon to hold (``Intent``) and checks it after
/// each sync of that machine. Nothing here uses `#expect` (no test is current on this thread) or throws out of a
/// step: every finding, an error thrown by a step included, is collected in ``failures`` for the test to report
/// with its seed.
struct KindsSyncSimulation {
    /// What the person of one machine asked of one record and has not yet seen confirmed by a sync.
    enum Intent: CustomStringConvertible {
        case delete
        /// The fields they set: those that differed from what the machine showed, every field of a create or a
        /// restore. Later changes add to it; a change answered with a conflict keeps it until the conflict is settled.
        case put(LedgerDataFields)

        var description: String {
            switch self {
            case .delete: "delete"
            case .put(let fields): "put " + fields.keys.sorted().map { "\($0)=\(fields[$0].map { "\($0)" } ?? "")" }.joined(separator: " ")
            }
        }
    }

    /// The record a person changes: a budget, a rule (`nil`: a new one) or the time zone.
    enum Target {
        case budget(String, Currency)
        case rule(UUID?)
        case timezone
    }

    /// How often each path was taken, so the test can tell the mix reached them.
    struct Statistics: Sendable {
        var changes = 0, conflicts = 0, mine = 0, theirs = 0, refused = 0, viewerSyncs = 0, confirmed = 0, rounds = 0
    }

    struct Outcome: Sendable {
        var failures: [String]
        var statistics: Statistics
    }

    // Two canonically equivalent spellings of one category: two budgets, two ids (the id hashes the bytes).
    static let categories = ["food", "caf\u{E9}", "cafe\u{301}"]
    static let currencies = ["EUR", "USD"].compactMap { Currency(code: $0) }
    static let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC"]

    let machines: [TestClient]
    let engines: [SyncEngine]
    let caches: [LedgerDataCache]
    let viewer: Int
    var random: SeededGenerator
    /// Per machine, per record: what its person still wants (editors only).
    var intents: [[UUID: Intent]]
    var failures: [String] = []
    var statistics = Statistics()
    var step = 0

    init(machines: [TestClient], engines: [SyncEngine], viewer: Int, seed: UInt64) throws {
        self.machines = machines
        self.engines = engines
        self.viewer = viewer
        caches = try machines.map { try LedgerDataCache(store: $0.ledger.store) }
        random = SeededGenerator(seed: seed)
        intents = Array(repeating: [:], count: machines.count)
    }

    var editors: [Int] { machines.indices.filter { $0 != viewer } }

    mutating func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }

    mutating func day() -> CalendarDay {
        let month = pick(12) + 1, day = pick(28) + 1
        return CalendarDay(year: 2026, month: month, day: day)!
    }

    mutating func amount() -> Int64 { Int64(pick(50) + 1) * 1000 }

    mutating func uuid() -> UUID {
        var words = (random.next(), random.next())
        return withUnsafeBytes(of: &words) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// The viewer learns its role at its first hello; then `operations` random steps; then rounds of settling and
    /// syncing until nothing is queued or open anywhere, and a last sync of every machine.
    mutating func run(operations: Int) -> Outcome {
        sync(viewer)
        for _ in 0..<operations {
            step += 1
            // The viewer one step in ten: enough refusals and syncs, most of the steps for the editors.
            let machine = pick(10) == 0 ? viewer : editors[pick(editors.count)]
            let roll = pick(100)
            do {
                switch roll {
                case 0..<8: try changeExpense(on: machine)
                case 8..<72:
                    let target = try target(on: machine)
                    // A fifth of them several times in a row between syncs (a budget's amount set twice, a rule
                    // skipped then removed, the time zone set twice, a budget removed and set again).
                    let times = roll < 60 ? 1 : 2 + pick(2)
                    try change(target, on: machine, times: times)
                case 72..<92: sync(machine)
                default: try settle(machine, theirsOnly: false)
                }
            } catch {
                failures.append("step \(step) on machine \(machine): \(error)")
            }
        }
        for round in 1...12 {
            step += 1
            var settled = true
            for machine in editors {
                do {
                    try settle(machine, theirsOnly: round > 3)
                } catch {
                    failures.append("step \(step): settling on machine \(machine): \(error)")
                }
                guard let report = sync(machine) else { settled = false; continue }
                if report.pending > 0 || report.openConflicts > 0 || report.pushed > 0 { settled = false }
            }
            if settled {
                statistics.rounds = round
                break
            }
        }
        for machine in machines.indices { sync(machine) }
        for machine in editors {
            for (id, intent) in intents[machine] { failures.append("machine \(machine): its \(intent) of \(id) was never confirmed") }
        }
        return Outcome(failures: failures, statistics: statistics)
    }

    /// A record to change, chosen from what `machine` shows.
    mutating func target(on machine: Int) throws -> Target {
        switch pick(10) {
        case 0..<4: return .budget(Self.categories[pick(Self.categories.count)], Self.currencies[pick(Self.currencies.count)])
        case 4..<8:
            let rules = try caches[machine].records(.recurring)
            return .rule(rules.isEmpty || pick(4) == 0 ? nil : rules[pick(rules.count)].id)
        default: return .timezone
        }
    }

    /// `times` changes of `target` on `machine` in a row, each as the command would make it from what the machine
    /// shows: `expense budget set` / `budget remove`, `recurring add` / `skip` / `keep-both` / `remove`,
    /// `config set timezone ZONE` / `local`.
    mutating func change(_ target: Target, on machine: Int, times: Int) throws {
        var target = target
        for _ in 0..<times {
            let (kind, id, fields) = try next(target, on: machine)
            if kind == .recurring { target = .rule(id) }
            guard machine != viewer else {
                refusedLocally(on: machine) { ledger in
                    if let fields { try ledger.put(kind, id: id, fields: fields) } else { _ = try ledger.deleteRecord(id: id) }
                }
                continue
            }
            try apply(kind, id: id, fields: fields, on: machine)
        }
    }

    /// The next change of `target` on `machine`: its kind, id and fields (`nil`: remove it).
    mutating func next(_ target: Target, on machine: Int) throws -> (RecordKind, UUID, LedgerDataFields?) {
        switch target {
        case .budget(let category, let currency):
            let id = Budget.id(category: category, currency: currency)
            guard let view = try caches[machine].record(id: id), !view.deleted else {
                let start = CalendarDay(year: 2026, month: 1, day: 1)!
                return (.budget, id, Budget(category: category, currency: currency, period: .month, start: start,
                                            rollover: .none, amounts: [BudgetAmount(from: start, amount: amount())]).fields)
            }
            var budget = try LedgerDataValidator.budget(id: id, fields: view.fields)
            switch pick(6) {
            case 0: return (.budget, id, nil)
            case 1: budget.period = BudgetPeriodLength.allCases[pick(BudgetPeriodLength.allCases.count)]
            case 2: budget.rollover = BudgetRollover.allCases[pick(BudgetRollover.allCases.count)]
            default: budget.amounts = budget.settingAmount(amount(), from: day())
            }
            return (.budget, id, budget.fields)
        case .rule(let id):
            guard let id, let view = try caches[machine].record(id: id), !view.deleted else {
                let rule = RecurringRule(id: uuid(), amount: amount(), currency: Self.currencies[pick(2)], category: "rent",
                                         note: "", every: 1, unit: .month, start: day(), end: .never, monthEnd: .clamp, skips: [],
                                         created: 1_790_000_000)
                return (.recurring, rule.id, rule.fields)
            }
            var rule = try LedgerDataValidator.recurring(id: id, fields: view.fields)
            let others = try caches[machine].records(.recurring).map(\.id).filter { $0 != id }
            let dates = rule.occurrences(through: CalendarDay(year: 2027, month: 12, day: 31)!, limit: 12)
            switch pick(5) {
            case 0: return (.recurring, id, nil)
            case 1 where !others.isEmpty: rule.distinctFrom.insert(others[pick(others.count)])
            default:
                guard !dates.isEmpty else { return (.recurring, id, nil) }
                rule.skips.insert(dates[pick(dates.count)])
            }
            return (.recurring, id, rule.fields)
        case .timezone:
            let id = LedgerSetting.id(.timezone)
            if pick(4) == 0 { return (.setting, id, nil) }
            return (.setting, id, LedgerSetting(name: .timezone, value: Self.zones[pick(Self.zones.count)]).fields)
        }
    }

    /// Makes the change on an editor and notes it in the model. Setting or removing a record whose conflict is open
    /// answers the conflict with what the machine showed (the daemon's side) plus this change: what the person
    /// wanted before is dropped there, by them.
    mutating func apply(_ kind: RecordKind, id: UUID, fields: LedgerDataFields?, on machine: Int) throws {
        let ledger = machines[machine].ledger
        let view = try caches[machine].record(id: id)
        let live = view.map { !$0.deleted } ?? false
        let answered = try caches[machine].conflictDetails().contains { $0.id == id }
        statistics.changes += 1
        guard let fields else {
            let removed = try ledger.deleteRecord(id: id)
            if removed != live {
                failures.append("step \(step): removing \(id) on machine \(machine) said \(removed), but it was \(live ? "" : "not ")shown")
            }
            // Removing a create the daemon never had (the machine holds no copy of it from the daemon) takes it back:
            // neither is sent, and the person wants nothing of whatever another machine set under that id.
            if removed { intents[machine][id] = view?.baseVersion == 0 ? nil : .delete }
            return
        }
        let stored = try ledger.put(kind, id: id, fields: fields)
        guard let view, live else {
            intents[machine][id] = .put(stored)
            return
        }
        var wanted: LedgerDataFields = [:]
        if !answered, case .put(let earlier)? = intents[machine][id] { wanted = earlier }
        for (name, value) in stored where !(view.fields[name].map { $0.same(as: value) } ?? false) { wanted[name] = value }
        intents[machine][id] = wanted.isEmpty ? nil : .put(wanted)
    }

    /// An expense added, changed or deleted beside the other kinds (the same queue and batches carry them).
    mutating func changeExpense(on machine: Int) throws {
        let client = machines[machine]
        let live = try client.ledger.list()
        let roll = pick(3)
        guard machine != viewer else {
            refusedLocally(on: machine) { ledger in
                _ = try ledger.add(ExpenseDraft(amount: 100, currency: "USD", category: "food", date: "2026-03-01"))
            }
            return
        }
        if live.isEmpty || roll == 0 {
            try client.add(amount(), Self.categories[pick(Self.categories.count)], date: day().description)
        } else if roll == 1 {
            try client.edit(live[pick(live.count)].id, ExpenseDraft(amount: amount()))
        } else {
            try client.delete(live[pick(live.count)].id)
        }
    }

    /// Runs `attempt` on the viewer's ledger: it must be refused with ``ReadOnlyLedgerError``, queueing nothing.
    mutating func refusedLocally(on machine: Int, _ attempt: (LocalLedger) throws -> Void) {
        do {
            try attempt(machines[machine].ledger)
            failures.append("step \(step): the viewer's change was accepted")
        } catch is ReadOnlyLedgerError {
            statistics.refused += 1
        } catch {
            failures.append("step \(step): the viewer's change failed with \(error), not ReadOnlyLedgerError")
        }
        if let pending = try? machines[machine].ledger.pendingCount(), pending > 0 {
            failures.append("step \(step): the viewer's cache queued \(pending) changes")
        }
    }

    /// Settles every open conflict of `machine`, each with `--mine` or `--theirs` at random (`--theirs` only when
    /// `theirsOnly`). `--theirs` drops what the person wanted of that record: the model forgets it there.
    mutating func settle(_ machine: Int, theirsOnly: Bool) throws {
        guard machine != viewer else { return }
        let ledger = machines[machine].ledger
        for conflict in try caches[machine].conflictDetails() {
            let mine = !theirsOnly && pick(2) == 0
            do {
                try ledger.resolve(conflict, mine ? .mine : .theirs)
            } catch {
                let sides = "mine: \(conflict.mine.map { "\($0.keys.sorted())" } ?? "delete"), "
                    + "theirs \(conflict.theirs.deleted ? "deleted" : "live") at version \(conflict.theirs.version)"
                failures.append("step \(step): resolve \(mine ? "--mine" : "--theirs") of the \(conflict.kind.rawValue) \(conflict.id) "
                                + "on machine \(machine) failed: \(error) (\(sides))")
                continue
            }
            if mine {
                statistics.mine += 1
                // What the daemon's side already holds is there (a later change of it by another machine is made on
                // top of it); the rest is sent again.
                if case .put(let fields)? = intents[machine][conflict.id], !conflict.theirs.deleted {
                    let missing = fields.filter { name, value in !(conflict.theirs.fields[name].map { $0.same(as: value) } ?? false) }
                    intents[machine][conflict.id] = missing.isEmpty ? nil : .put(missing)
                }
            } else {
                statistics.theirs += 1
                intents[machine][conflict.id] = nil
            }
        }
        for conflict in try ledger.store.conflicts() {
            try ledger.resolve(conflict, !theirsOnly && pick(2) == 0 ? .mine : .theirs)
        }
    }

    /// One sync of `machine`; a failure of any sync is a finding. After an editor's sync, each record it left with
    /// nothing queued and no conflict open must show what the person wanted of it: the pull that follows the push
    /// brings the daemon's record, and no other machine acts in between.
    @discardableResult
    mutating func sync(_ machine: Int) -> SyncEngine.Report? {
        let report: SyncEngine.Report
        do {
            report = try engines[machine].sync()
        } catch {
            failures.append("step \(step): the sync of machine \(machine)\(machine == viewer ? " (the viewer)" : "") failed: \(error)")
            return nil
        }
        if report.rejected > 0 || report.openRejections > 0 {
            failures.append("step \(step): machine \(machine)'s sync had \(report.rejected) rejections, \(report.openRejections) open")
        }
        if machine == viewer {
            statistics.viewerSyncs += 1
            if report.pushed > 0 || report.pending > 0 || report.openConflicts > 0 {
                failures.append("step \(step): the viewer pushed \(report.pushed), has \(report.pending) queued, "
                                + "\(report.openConflicts) conflicts")
            }
            return report
        }
        statistics.conflicts += report.newConflicts
        do {
            try confirm(machine)
        } catch {
            failures.append("step \(step): reading machine \(machine)'s cache failed: \(error)")
        }
        return report
    }

    /// Checks and forgets what the person of `machine` wanted of each record its last sync left with nothing queued
    /// and no conflict open: the machine must show it.
    mutating func confirm(_ machine: Int) throws {
        let open = Set(try caches[machine].conflictDetails().map(\.id))
        for (id, intent) in intents[machine] where !open.contains(id) {
            let view = try caches[machine].record(id: id)
            if view?.pending == true { continue }
            let shown = switch intent {
            case .delete: view.map(\.deleted) ?? true
            case .put(let fields):
                view.map { view in
                    !view.deleted && fields.allSatisfy { name, value in view.fields[name].map { $0.same(as: value) } ?? false }
                } ?? false
            }
            if shown {
                statistics.confirmed += 1
            } else {
                failures.append("step \(step): machine \(machine) lost its \(intent) of \(id): it shows "
                                + (view.map { $0.deleted ? "it deleted" : "\($0.fields)" } ?? "nothing"))
            }
            intents[machine][id] = nil
        }
    }
}
