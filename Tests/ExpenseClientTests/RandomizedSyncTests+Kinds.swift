import LedgerTestSupport
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation
import Testing
import TestSupport

extension RandomizedSyncTests {
    /// Budgets, recurring rules and the ledger's time zone changed at random on three editors' machines and tried on a
    /// viewer's (``KindsSyncSimulation``), beside a few expenses in the same queue, then settled and synced until nothing
    /// is queued or open anywhere. Set `EXPENSE_SYNC_SEED` to replay a run; the seed is printed on failure.
    ///
    /// What is checked:
    /// - Every machine, the viewer included, shows exactly the daemon's live records of each kind (fields compared
    ///   with ``LedgerDataValue/same(as:)``, text by its bytes) and none of its deleted ones, and its expenses; nothing
    ///   is queued and no conflict is open anywhere.
    /// - The viewer: each attempted change is refused locally with ``ReadOnlyLedgerError`` and queues nothing, and
    ///   every one of its syncs succeeds.
    /// - No intent is lost, in two halves:
    ///   1. Delivered: what a person set on an editor (the fields that differed from what it showed, every field of a
    ///      create or a restore, or a removal), consecutive changes adding up, must be shown by that machine after the
    ///      first of its syncs that leaves the record with nothing queued and no conflict open: that sync's pull brings
    ///      the daemon's record, and no other machine acts in between. A change answered with a conflict stays wanted
    ///      while the conflict is open. It is given up only deliberately: settled `--theirs`; set or removed again while
    ///      its conflict is open (the machine shows the daemon's side then, which is what the person started from);
    ///      settled `--mine`, for the fields the daemon's side already holds (the rest stays wanted); a create the
    ///      daemon never had, removed before it was sent (neither is sent). At the end nothing is still wanted.
    ///   2. Kept: the daemon's record of each budget, rule and setting is exactly the replay, in the order the daemon
    ///      answered them (the machines sync one at a time), of the changes it acknowledged as applied
    ///      (``SyncEngine/Dependencies/onApplied``): a put's fields over the record's (all of them for a create or a restore), a
    ///      delete marking it deleted, and its version is that of the last one; and no acknowledged change replaced a
    ///      change it had not seen (a put changing a field last changed after its base version, money as one field; a
    ///      delete or a restore not based on the version it replaced). So an acknowledged change is undone only by a
    ///      later acknowledged change of the same field made knowing it, and nothing is there that no machine sent. A
    ///      change answered with a conflict is never acknowledged: it reaches the daemon only as its `--mine` resubmission.
    @Test func budgetsRulesAndSettingsConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["EXPENSE_SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        let comment = Comment(rawValue: "seed \(seed) (replay with EXPENSE_SYNC_SEED=\(seed))")
        let daemon = try TestDaemon()
        let viewer = 3
        let viewerToken = try await daemon.ledger.addToken(name: "tablet", role: .viewer)
        let acknowledged = LockedValue<[Acknowledged]>([])
        let machines = try (0...viewer).map { index in
            let machine = try TestClient("machine\(index)", persistent: true)
            if index == viewer {
                machine.remote = RemoteConfiguration(server: daemon.remote.server, ledger: "default", token: viewerToken)
            }
            machine.dependencies.onApplied = { entry, version in acknowledged.set(acknowledged.get() + [Acknowledged(entry: entry, version: version)]) }
            return machine
        }
        let engines = machines.map { $0.engine(daemon) }
        let outcome = try await onOwnThread { [engines] in
            var simulation = try KindsSyncSimulation(machines: machines, engines: engines, viewer: viewer, seed: seed)
            return simulation.run(operations: 500)
        }
        for failure in outcome.failures.prefix(20) { Issue.record("\(failure); \(comment)") }
        #expect(outcome.failures.count <= 20, "and \(outcome.failures.count - 20) more findings; \(comment)")
        let statistics = outcome.statistics
        // The mix reaches what it is for: conflicts settled both ways, changes confirmed, a viewer refused and syncing.
        #expect(statistics.rounds > 0 && statistics.rounds <= 6, "settled in \(statistics.rounds) rounds; \(comment)")
        #expect(statistics.conflicts > 0 && statistics.mine > 0 && statistics.theirs > 0, "\(statistics); \(comment)")
        #expect(statistics.confirmed > 100 && statistics.refused > 10 && statistics.viewerSyncs >= 3, "\(statistics); \(comment)")

        let records = try await Self.dataRecords(daemon)
        let expenses = liveExpenses(try await daemon.records())
        for machine in machines {
            let cache = try LedgerDataCache(store: machine.ledger.store)
            for kind in RecordKind.additional {
                let shown = Dictionary(uniqueKeysWithValues: try cache.records(kind).map { ($0.id, $0.fields) })
                let live = records.values.filter { $0.kind == kind && !$0.deleted }
                #expect(Set(shown.keys) == Set(live.map(\.id)), "\(machine.name) \(kind.rawValue)s; \(comment)")
                for record in live {
                    #expect(shown[record.id].map { Self.same($0, record.fields) } == true, "\(machine.name) \(record.id); \(comment)")
                }
            }
            for record in records.values where record.deleted {
                #expect(try cache.record(id: record.id)?.deleted ?? true, "\(machine.name) shows deleted \(record.id); \(comment)")
            }
            #expect(Self.bytes(try machine.live()) == Self.bytes(expenses), "\(machine.name); \(comment)")
            #expect(try machine.ledger.pendingCount() == 0, "\(machine.name); \(comment)")
            #expect(try machine.ledger.store.conflicts().isEmpty && cache.conflictDetails().isEmpty, "\(machine.name); \(comment)")
        }

        // Kept: the daemon's records are the replay of the acknowledged changes, in the order they were answered.
        let acks = acknowledged.get().filter { $0.entry.kind != .expense }
        #expect(acks.count > 100, comment)
        let (replayed, findings) = Self.replay(acks)
        for finding in findings.prefix(20) { Issue.record("\(finding); \(comment)") }
        #expect(Set(replayed.keys) == Set(records.keys), "records no acknowledged change explains; \(comment)")
        for (id, record) in records {
            guard let replay = replayed[id] else { continue }
            #expect(replay.version == record.version && replay.deleted == record.deleted, "\(id); \(comment)")
            if !record.deleted {
                #expect(Self.same(replay.fields, record.fields),
                        "\(record.kind.rawValue) \(id) is \(record.fields), the acknowledged changes make \(replay.fields); \(comment)")
            }
        }
        await daemon.stop()
    }

    /// Replays acknowledged changes of budgets, rules and settings in the order they were answered: a put's fields
    /// over the record's (all of them for a create or a restore), a delete marking it deleted.
    /// - Returns: the records they make, and each place where one was applied over a change it had not seen (a put
    ///   changing a field last changed after its base version, a delete or a restore not based on the version it
    ///   replaced): the daemon would have had to answer it with a conflict.
    private static func replay(_ acks: [Acknowledged]) -> (records: [UUID: DataRecord], findings: [String]) {
        var records: [UUID: DataRecord] = [:]
        var changedAt: [UUID: [String: Int64]] = [:]  // per record, the version each conflict field last changed at
        var findings: [String] = []
        for ack in acks {
            let entry = ack.entry, id = ack.entry.id
            var record = records[id] ?? DataRecord(kind: entry.kind, id: id, fields: [:], version: 0, seq: 0, deleted: true)
            if ack.version < record.version { findings.append("\(id) acknowledged at \(ack.version) after \(record.version)") }
            switch entry.type {
            case .delete:
                if record.version == 0 { findings.append("a delete of \(id) acknowledged before any put") }
                if !record.deleted && entry.baseVersion != record.version {
                    findings.append("a delete of \(id) based on version \(entry.baseVersion) removed version \(record.version)")
                }
                record.deleted = true
            case .put where record.deleted:
                if entry.baseVersion != record.version {
                    findings.append("a restore of \(id) based on version \(entry.baseVersion) replaced version \(record.version)")
                }
                // A field keeps its version through a delete and a restore that gives it the tombstone's value again
                // (Protocol.md §7.4: the version at which it last changed); a create changes every field.
                for name in Set(entry.data.keys).union(record.fields.keys)
                where !(record.fields[name].flatMap { old in entry.data[name].map { old.same(as: $0) } } ?? false) {
                    changedAt[id, default: [:]][LedgerDataValidator.conflictField(name)] = ack.version
                }
                record.fields = entry.data
                record.deleted = false
            case .put:
                for (name, value) in entry.data where !(record.fields[name].map { $0.same(as: value) } ?? false) {
                    let field = LedgerDataValidator.conflictField(name)
                    if let last = changedAt[id]?[field], last > entry.baseVersion {
                        findings.append("a change of \(field) of \(id) based on version \(entry.baseVersion) "
                                        + "overwrote its change at \(last)")
                    }
                    changedAt[id, default: [:]][field] = ack.version
                }
                record.fields.merge(entry.data) { _, new in new }
            }
            record.version = ack.version
            records[id] = record
        }
        return (records, findings)
    }

    /// The same fields with the same values (``LedgerDataValue/same(as:)``).
    private static func same(_ a: LedgerDataFields, _ b: LedgerDataFields) -> Bool {
        a.count == b.count && a.allSatisfy { name, value in b[name].map { value.same(as: $0) } ?? false }
    }

    /// Every budget, rule and setting the daemon holds (tombstones included), by id.
    private static func dataRecords(_ daemon: TestDaemon) async throws -> [UUID: DataRecord] {
        let ledger = try daemon.ledger
        var since: Int64 = 0
        var all: [UUID: DataRecord] = [:]
        while true {
            let page = try await ledger.pull(PullRequest(since: since, limit: 10_000, kinds: Set(RecordKind.additional)))
            for record in page.dataChanges { all[record.id] = record }
            since = page.cursor
            if !page.more { return all }
        }
    }
}
