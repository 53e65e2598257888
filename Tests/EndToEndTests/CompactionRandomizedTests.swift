import ExpenseProtocol
import ExpenseTransport
import Foundation
import Synchronization
import Testing
import TestSupport

/// The compaction soak (docs/reliability.md §12): three wire clients on threads of their own push seeded random
/// batches of creates, edits (full puts at the base they believe, now and then a stale one or an unchanged one),
/// deletes and re-creates, restores and re-deletes of recently deleted ids, and sometimes a batch again with its
/// mutationIds, to a real `expensed`, while `expensed compact --keep-days 0` runs beside it at random moments.
///
/// Checked at the end (``SoakModel``): the daemon ran throughout and exits 0 on SIGTERM; every answer was
/// `applied`, `conflict` or, for a batch sent again, the `duplicate` of its first answer; the applied answers
/// of all clients name every version 1 … last of each record once (one seq and one state per version, seqs
/// unique and rising with the version); every record the daemon showed (conflicts, pulls) is such a version;
/// a fresh full pull holds each record's last acknowledged version exactly (a deletion as its tombstone or,
/// purged, absent), its summary the sum of the live ones; each client, pulling up to the head, holds exactly
/// what that pull holds, besides tombstones. Then one more compaction purges the deletions, a pull no longer
/// carries them and still carries every live record, and each deletion is still one: a delete of it is
/// `applied` at its version and seq, a create of it a conflict with its tombstone.
///
/// The short form runs in `swift test`; `Scripts/compaction-soak` runs it long. `EXPENSE_SOAK_SEED` replays a
/// run's choices (the threads' interleaving is the machine's), `EXPENSE_SOAK_ROUNDS` sets the batches per
/// client (default 400), `EXPENSE_SOAK_SECONDS` runs for that long instead.
@Suite(.serialized) struct CompactionRandomizedTests {
    @Test func randomClientsBesideCompactionsOfASQLiteLedgerLoseNothingAndConverge() async {
        let settings = Settings.current
        let failures = await Self.failures {
            let scratch = try TemporaryDirectory("expense-compaction-soak")
            defer { scratch.remove() }
            let data = scratch.file("data")
            let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--data", data], scratch: scratch.path)
            defer { _ = daemon.stop(SIGKILL) }
            return try Self.soak(daemon, store: "SQLite", storage: ["--data", data], scratch: scratch.path, settings: settings) {
                try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        Self.record(failures, settings: settings, store: "SQLite")
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func randomClientsBesideCompactionsOfAPostgresLedgerLoseNothingAndConverge() async {
        let settings = Settings.current
        let failures = await Self.failures {
            try withPostgresSchema { target, _, _ in
                let scratch = try TemporaryDirectory("expense-compaction-soak-pg")
                defer { scratch.remove() }
                let added = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, ["ledger", "add", "default", "--postgres", target],
                                                   environment: ProcessInfo.processInfo.environment, scratch: scratch.path)
                guard added.status == 0 else { return ["expensed ledger add: \(added)"] }
                let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--postgres", target], scratch: scratch.path)
                defer { _ = daemon.stop(SIGKILL) }
                return try Self.soak(daemon, store: "PostgreSQL", storage: ["--postgres", target], scratch: scratch.path, settings: settings) {
                    added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                }
            }
        }
        Self.record(failures, settings: settings, store: "PostgreSQL")
    }

    /// What `body` returns, run on a thread of its own; an error it throws is one failure more.
    static func failures(_ body: @escaping @Sendable () throws -> [String]) async -> [String] {
        do { return try await onOwnThread(body) } catch { return ["\(error)"] }
    }

    /// Records the first failures as issues of the test (from its task: an issue recorded on a thread of the
    /// test's own would belong to no test), each with the seed and how to replay it.
    static func record(_ failures: [String], settings: Settings, store: String) {
        let replay = "\(store) soak, seed \(settings.seed) (replay: \(settings.replay) swift test --filter CompactionRandomized)"
        for failure in failures.prefix(20) { Issue.record(Comment(rawValue: "\(failure); \(replay)")) }
        #expect(failures.isEmpty, "\(failures.count) failures; \(replay)")
    }

    /// The run's size and seed, from the environment.
    struct Settings: Sendable {
        var seed: UInt64
        var rounds: Int
        var seconds: Int?

        static var current: Settings {
            let environment = ProcessInfo.processInfo.environment
            return Settings(seed: environment["EXPENSE_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max),
                            rounds: environment["EXPENSE_SOAK_ROUNDS"].flatMap { Int($0) } ?? 400,
                            seconds: environment["EXPENSE_SOAK_SECONDS"].flatMap { Int($0) })
        }

        var replay: String {
            "EXPENSE_SOAK_SEED=\(seed) " + (seconds.map { "EXPENSE_SOAK_SECONDS=\($0)" } ?? "EXPENSE_SOAK_ROUNDS=\(rounds)")
        }
    }

    /// Raised once the clients are done, to end the compactions.
    final class Stop: Sendable {
        private let raised = Mutex(false)
        func raise() { raised.withLock { $0 = true } }
        var isRaised: Bool { raised.withLock { $0 } }
    }

    /// What the compactions beside the daemon printed.
    struct Compactions: Sendable {
        var runs = 0, tombstones = 0, entries = 0
        var horizon: Int64 = 0
        var failures: [String] = []
    }

    final class Box<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    /// Runs the soak against `daemon` (serving `default`, whose owner token `readToken` reads); `storage` names
    /// the ledger's storage for `expensed compact`. Blocks its thread.
    /// - Returns: what went wrong, a line each; empty when nothing did.
    static func soak(_ daemon: DaemonProcess, store: String, storage: [String], scratch: String, settings: Settings,
                     token readToken: () throws -> String) throws -> [String] {
        guard daemon.firstLine?.hasPrefix("listening on 127.0.0.1:") == true else {
            return ["the daemon did not start: \(daemon.firstLine ?? "<nothing>"); \(daemon.stderr)"]
        }
        let token = try readToken()
        let started = ContinuousClock.now
        let address = try daemon.address(), pid = daemon.pid
        let compactArguments = ["compact", "--ledger", "default", "--keep-days", "0"] + storage
        let clients = try (0..<3).map { try SoakClient(index: $0, seed: settings.seed, address: address, token: token) }
        let deadline = settings.seconds.map { ContinuousClock.now + .seconds($0) }
        let stop = Stop(), compactions = Box(Compactions())
        concurrently([
            { compactions.value.withLock { $0 = compactUntil(stop, compactArguments, scratch: scratch, daemon: pid, seed: settings.seed) } },
            {
                concurrently(clients.map { client in { client.play(rounds: settings.rounds, until: deadline) } })
                stop.raise()
            },
        ])
        for client in clients { client.catchUp() }
        var failures = compactions.value.withLock { $0.failures }
        let reports = clients.map(\.report)
        failures += reports.flatMap(\.failures)

        // The daemon's ledger, read by a connection of its own.
        let reader = try WireClient(address)
        defer { reader.close() }
        _ = try reader.hello(token: token)
        let server = try reader.pullAll()
        let model = SoakModel(reports.flatMap(\.acknowledgements))
        failures += model.failures
        failures += reports.reduce(into: Set<SoakSighting>()) { $0.formUnion($1.sightings) }.compactMap(model.check)
        failures += model.check(finalPull: server)
        failures += converged(reports, server)
        let live = server.filter { !$0.deleted }
        let summary = try SummaryResult(json: reader.result("summary", "{}")).summary.totals
        // Sums of the soak's amounts (each below 100,000, a few thousand records): far from overflowing.
        if summary.map(\.amount).reduce(0, +) != live.map(\.expense.amount).reduce(0, +) || summary.map(\.count).reduce(0, +) != Int64(live.count) {
            failures.append("the summary \(summary) is not the final pull's \(live.count) live records")
        }

        // One compaction more, once every change is a second old: every deletion but the head's is purged.
        CompactionBesideDaemonTests.waitForTheNextSecond()
        let last = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, compactArguments, environment: ProcessInfo.processInfo.environment,
                                          scratch: scratch)
        let horizon = parseCompaction(last.stdout)?.horizon ?? -1
        if last.status != 0 || horizon < 0 { failures.append("the last compaction: \(last)") }
        let (compacted, firstPageEnd) = try pullFromZero(reader)
        if compacted.filter({ !$0.deleted }) != live { failures.append("the last compaction changed the live records") }
        // The first page leaves the purged tombstones out; the later ones (from a cursor above 0) carry them.
        if compacted.filter(\.deleted) != server.filter({ $0.deleted && ($0.seq > horizon || $0.seq > firstPageEnd) }) {
            failures.append("after the last compaction (horizon \(horizon), first page to \(firstPageEnd)) the pull's tombstones are "
                            + "\(compacted.filter(\.deleted).map(\.seq)), not those of \(server.filter(\.deleted).map(\.seq)) above them")
        }
        let deletions = model.finalDeletions
        failures += try purgedDeletionsStayDeletions(deletions, address: address, token: token)
        if try pullFromZero(reader).records != compacted { failures.append("checking the deletions changed the ledger") }
        if !daemon.isRunning { failures.append("the daemon is gone: \(daemon.stderr)") }
        let ending = daemon.stop()
        if ending != DaemonProcess.Ending(status: 0, reason: .exit) { failures.append("the daemon ended \(ending): \(daemon.stderr)") }

        let counts = reports.map(\.counts).reduce(SoakClientReport.Counts(), +)
        let done = compactions.value.withLock { $0 }
        if counts.applied == 0 || done.runs == 0 || deletions.isEmpty {
            failures.append("too little happened: \(counts.applied) applied, \(done.runs) compactions, \(deletions.count) deletions")
        }
        print("compaction soak (\(store)): seed \(settings.seed), \(settings.seconds.map { "\($0) s" } ?? "\(settings.rounds) rounds per client"), "
              + "\(counts.pushes) pushes of \(counts.mutations) mutations: \(counts.applied) applied, \(counts.conflicts) conflicts "
              + "(\(counts.recreatesMetDeletion) re-creates met their deletion), \(counts.restores) restores, "
              + "\(counts.duplicatesChecked) duplicates checked, \(counts.pulls) pulls; "
              + "\(done.runs) compactions beside it purged \(done.tombstones) tombstones; the last purged to \(horizon) and "
              + "\(deletions.filter { $0.seq <= horizon }.count) of \(deletions.count) deletions were checked; "
              + "\(failures.count) failures; \(started.duration(to: .now))")
        return failures
    }

    /// Runs `expensed compact` at random moments until `stop` is raised, checking each run's answer and that the
    /// daemon still runs after it.
    static func compactUntil(_ stop: Stop, _ arguments: [String], scratch: String, daemon pid: Int32, seed: UInt64) -> Compactions {
        var random = SeededGenerator(seed: seed ^ 0x5DEE_CE66_D1CE_5EED)
        var done = Compactions()
        repeat {  // at least once, however fast the clients are
            // A random moment among the clients' pushes: nothing waits for this pause, it only spreads the runs.
            usleep(UInt32.random(in: 0...250_000, using: &random))
            do {
                let run = try ExpenseProcess.run(ExpenseProcess.daemonExecutable, arguments, environment: ProcessInfo.processInfo.environment,
                                                 scratch: scratch)
                guard run.status == 0, let report = parseCompaction(run.stdout), report.horizon >= done.horizon else {
                    done.failures.append("compaction \(done.runs + 1) (horizon so far \(done.horizon)): \(run)")
                    break
                }
                done.runs += 1
                done.horizon = report.horizon
                done.tombstones += report.tombstones
                done.entries += report.entries
            } catch {
                done.failures.append("compaction \(done.runs + 1): \(error)")
            }
            if !DaemonProcess.isRunning(pid) { done.failures.append("the daemon is gone after compaction \(done.runs)") }
        } while !stop.isRaised && done.failures.isEmpty
        return done
    }

    /// `horizon H, purged T tombstones and removed E history entries`.
    static func parseCompaction(_ output: String) -> (horizon: Int64, tombstones: Int, entries: Int)? {
        let words = output.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" })
        guard words.count == 10, words[0] == "horizon", let horizon = Int64(words[1]), let tombstones = Int(words[3]),
              let entries = Int(words[7]) else { return nil }
        return (horizon, tombstones, entries)
    }

    /// Every record from 0 in pages of 1,000, and where the first page ended (`Int64.max` when it was the last).
    static func pullFromZero(_ client: WireClient) throws -> (records: [Record], firstPageEnd: Int64) {
        var records: [Record] = [], since: Int64 = 0, firstPageEnd: Int64?
        while true {
            let page = try PullResult(json: client.result("pull", #"{"since":\#(since),"limit":1000}"#))
            records += page.changes
            since = page.cursor
            guard page.more else { return (records, firstPageEnd ?? .max) }
            firstPageEnd = firstPageEnd ?? page.cursor
        }
    }

    /// What is wrong with each client's ledger against the daemon's full pull: every record of the pull equal,
    /// and nothing else but tombstones (of deletions the pull no longer carries).
    static func converged(_ reports: [SoakClientReport], _ server: [Record]) -> [String] {
        let byId = Dictionary(server.map { ($0.expense.id, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        for report in reports {
            for record in server where report.view[record.expense.id] != record {
                problems.append("client \(report.index) holds \(report.view[record.expense.id].map { "\($0)" } ?? "nothing") for \(record)")
            }
            for (id, record) in report.view where byId[id] == nil && !record.deleted {
                problems.append("client \(report.index) holds \(record), whose deletion it never pulled")
            }
        }
        return problems
    }

    /// Each deletion, purged or not, is still one: from a client of its own, a delete at its version is applied
    /// at that version and seq (no new version), and a create is a conflict with the tombstone.
    static func purgedDeletionsStayDeletions(_ deletions: [(id: UUID, version: Int64, seq: Int64)], address: SocketAddress,
                                             token: String) throws -> [String] {
        let checker = try WireClient(address)
        defer { checker.close() }
        _ = try checker.hello(token: token)
        var problems: [String] = [], mutationId: Int64 = 0
        for chunk in stride(from: 0, to: deletions.count, by: 400).map({ deletions[$0..<min($0 + 400, deletions.count)] }) {
            var mutations: [String] = []
            for deletion in chunk {
                mutations.append(#"{"mutationId":\#(mutationId + 1),"type":"delete","id":"\#(deletion.id.uuidString)","baseVersion":\#(deletion.version)}"#)
                mutations.append(#"{"mutationId":\#(mutationId + 2),"type":"put","id":"\#(deletion.id.uuidString)","baseVersion":0,"#
                                 + #""fields":{"amount":1,"category":"again","date":"2026-02-01"}}"#)
                mutationId += 2
            }
            let answers = try PushResult(json: checker.result("push", #"{"mutations":[\#(mutations.joined(separator: ","))]}"#)).results.map(\.status)
            for (offset, deletion) in chunk.enumerated() {
                if answers[2 * offset] != .applied(version: deletion.version, seq: deletion.seq) {
                    problems.append("a delete of \(deletion.id), deleted at version \(deletion.version) seq \(deletion.seq): \(answers[2 * offset])")
                }
                guard case .conflict(let current) = answers[2 * offset + 1], current.deleted, current.version == deletion.version,
                      current.seq == deletion.seq else {
                    problems.append("a create of \(deletion.id), deleted at version \(deletion.version) seq \(deletion.seq): \(answers[2 * offset + 1])")
                    continue
                }
            }
        }
        return problems
    }

    /// Runs each body on a thread of its own and returns when all have returned. Blocks its caller: call it from
    /// a thread of the test's own, never from the cooperative pool.
    static func concurrently(_ bodies: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            let thread = Thread {
                body()
                group.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        group.wait()
    }
}
