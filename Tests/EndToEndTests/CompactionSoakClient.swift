import ExpenseProtocol
import ExpenseTransport
import Foundation
import TestSupport

/// What one soak client did and saw, handed back to the test when its thread ends.
struct SoakClientReport: Sendable {
    /// Counters for the run's summary line.
    struct Counts: Sendable {
        var pushes = 0, mutations = 0, applied = 0, conflicts = 0
        /// Creates of a deleted id (a healing client's re-send) that met the deletion as a conflict.
        var recreatesMetDeletion = 0
        /// Puts at a tombstone's version that brought it back.
        var restores = 0
        /// Answers to a batch sent again with the same mutationIds, checked against the first answers.
        var duplicatesChecked = 0
        var pulls = 0

        static func + (left: Counts, right: Counts) -> Counts {
            Counts(pushes: left.pushes + right.pushes, mutations: left.mutations + right.mutations, applied: left.applied + right.applied,
                   conflicts: left.conflicts + right.conflicts, recreatesMetDeletion: left.recreatesMetDeletion + right.recreatesMetDeletion,
                   restores: left.restores + right.restores, duplicatesChecked: left.duplicatesChecked + right.duplicatesChecked,
                   pulls: left.pulls + right.pulls)
        }
    }

    var index: Int
    var acknowledgements: [SoakAcknowledgement]
    var sightings: Set<SoakSighting>
    /// The ledger as this client's pulls built it.
    var view: [UUID: Record]
    var counts: Counts
    /// What went wrong on the wire (an error answer, a rejection, a wrong duplicate); empty when nothing did.
    var failures: [String]
}

/// One wire client of the compaction soak: its own connection and clientId, its own seeded choices, and what it
/// believes of each record (the highest version any answer or pull showed it).
// @unchecked Sendable: used by one thread at a time — the test hands it to its own thread to play, awaits that
// thread, then to another to catch up — never by two at once.
final class SoakClient: @unchecked Sendable {
    private struct Known {
        var version: Int64
        var deleted: Bool
        var content: SoakContent
    }

    /// One mutation of a batch, with what it does when applied.
    private struct Planned {
        enum Purpose { case create, edit, delete, recreate, restore, deleteAgain }
        var id: UUID
        var base: Int64
        var effect: SoakEffect
        var purpose: Purpose
    }

    private let index: Int
    private var random: SeededGenerator
    private let wire: WireClient
    private var nextMutationId: Int64 = 1
    private var known: [UUID: Known] = [:]
    /// Every id this client has heard of, in the order it heard of it (choices index it: a dictionary's order
    /// changes from process to process, which would make a seed replay differently).
    private var discovered: [UUID] = []
    /// Ids in the order this client learned they were deleted.
    private var deletions: [UUID] = []
    private var view: [UUID: Record] = [:]
    private var cursor: Int64 = 0
    private var lastHead: Int64 = 0
    private var lastBatch: (line: String, planned: [Planned], answers: [MutationStatus])?
    private var acknowledgements: [SoakAcknowledgement] = []
    private var sightings: Set<SoakSighting> = []
    private var counts = SoakClientReport.Counts()
    private var failures: [String] = []

    init(index: Int, seed: UInt64, address: SocketAddress, token: String) throws {
        self.index = index
        random = SeededGenerator(seed: seed ^ (UInt64(index + 1) &* 0xD1B5_4A32_D192_ED03))
        wire = try WireClient(address)
        _ = try wire.hello(token: token)
    }

    deinit { wire.close() }

    /// Plays `rounds` rounds, or until `deadline` when one is given, stopping at the first failure. Blocks its thread.
    func play(rounds: Int, until deadline: ContinuousClock.Instant?) {
        var round = 0
        while failures.isEmpty, deadline.map({ ContinuousClock.now < $0 }) ?? (round < rounds) {
            do { try self.round() } catch { failures.append("client \(index): \(error)") }
            round += 1
        }
    }

    /// Pulls up to the head (healing when its cursor expired), once nobody changes the ledger any more.
    func catchUp() {
        guard failures.isEmpty else { return }
        do { try pull() } catch { failures.append("client \(index): \(error)") }
    }

    var report: SoakClientReport {
        SoakClientReport(index: index, acknowledgements: acknowledgements, sightings: sightings, view: view, counts: counts, failures: failures)
    }

    /// One round: a new batch (or, now and then, the last batch again), then maybe a pull.
    private func round() throws {
        if let last = lastBatch, Int.random(in: 0..<12, using: &random) == 0 {
            try pushAgain(last)
        } else {
            try push(plan())
        }
        if Bool.random(using: &random) { try pull() }
    }

    // MARK: Choosing mutations

    private func plan() -> [Planned] {
        var batch: [Planned] = [], used: Set<UUID> = []
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let planned: Planned? = switch Int.random(in: 0..<10, using: &random) {
            case 0...2: nil
            case 3...5: pick(live: true, from: discovered, excluding: used).map(edit)
            case 6...7: pick(live: true, from: discovered, excluding: used).map(delete)
            default: pick(live: false, from: deletions, excluding: used).map(recreate)
            }
            let chosen = planned ?? Planned(id: random.uuid(), base: 0, effect: .put(randomContent()), purpose: .create)
            used.insert(chosen.id)
            batch.append(chosen)
        }
        return batch
    }

    /// One of the last 64 ids of `ids` that this client believes live (or deleted), not in `used`.
    private func pick(live: Bool, from ids: [UUID], excluding used: Set<UUID>) -> (UUID, Known)? {
        let recent = ids.suffix(64)
        guard !recent.isEmpty else { return nil }
        for _ in 0..<8 {
            let id = recent[recent.startIndex + Int.random(in: 0..<recent.count, using: &random)]
            if let belief = known[id], belief.deleted != live, !used.contains(id) { return (id, belief) }
        }
        return nil
    }

    /// A base a little stale now and then, as a client that has not pulled a change yet would send.
    private func base(_ belief: Known) -> Int64 {
        belief.version > 1 && Int.random(in: 0..<6, using: &random) == 0 ? belief.version - 1 : belief.version
    }

    private func edit(_ chosen: (UUID, Known)) -> Planned {
        let content = Int.random(in: 0..<6, using: &random) == 0 ? chosen.1.content : randomContent()
        return Planned(id: chosen.0, base: base(chosen.1), effect: .put(content), purpose: .edit)
    }

    private func delete(_ chosen: (UUID, Known)) -> Planned {
        Planned(id: chosen.0, base: base(chosen.1), effect: .delete, purpose: .delete)
    }

    /// A deleted id again: re-created (a healing client's re-send of a whole expense), restored at the
    /// tombstone's version, or deleted again.
    private func recreate(_ chosen: (UUID, Known)) -> Planned {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<10: Planned(id: chosen.0, base: 0, effect: .put(randomContent()), purpose: .recreate)
        case 10..<17: Planned(id: chosen.0, base: chosen.1.version, effect: .put(randomContent()), purpose: .restore)
        default: Planned(id: chosen.0, base: chosen.1.version, effect: .delete, purpose: .deleteAgain)
        }
    }

    private func randomContent() -> SoakContent {
        SoakContent(amount: Int64.random(in: 1...99_999, using: &random),
                    category: ["food", "rent", "travel", "books"][Int.random(in: 0..<4, using: &random)],
                    date: "2026-01-" + String(format: "%02d", Int.random(in: 1...28, using: &random)),
                    note: ["", "lunch", "taxi", "soak \(Int.random(in: 0..<1000, using: &random))"][Int.random(in: 0..<4, using: &random)])
    }

    // MARK: Pushing

    private func push(_ batch: [Planned]) throws {
        let first = nextMutationId
        nextMutationId += Int64(batch.count)
        let line = batch.enumerated().map { offset, planned in
            let head = #"{"mutationId":\#(first + Int64(offset)),"type":"#
            return switch planned.effect {
            case .put(let content):
                head + #""put","id":"\#(planned.id.uuidString)","baseVersion":\#(planned.base),"fields":\#(content.fieldsJSON)}"#
            case .delete:
                head + #""delete","id":"\#(planned.id.uuidString)","baseVersion":\#(planned.base)}"#
            }
        }.joined(separator: ",")
        guard let answers = try send(line, count: batch.count, first: first) else { return }
        counts.pushes += 1
        counts.mutations += batch.count
        for (offset, (planned, answer)) in zip(batch, answers).enumerated() {
            take(answer, of: planned, mutationId: first + Int64(offset))
        }
        lastBatch = (line, batch, answers)
    }

    /// The last batch again, with its mutationIds: every answer is `duplicate`, its `original` the first answer.
    private func pushAgain(_ last: (line: String, planned: [Planned], answers: [MutationStatus])) throws {
        let first = nextMutationId - Int64(last.planned.count)
        guard let answers = try send(last.line, count: last.planned.count, first: first) else { return }
        for (offset, (answer, original)) in zip(answers, last.answers).enumerated() {
            counts.duplicatesChecked += 1
            let mutationId = first + Int64(offset)
            switch (answer, original) {
            case (.duplicate(.applied(let version, let seq)?), .applied(let firstVersion, let firstSeq))
                where version == firstVersion && seq == firstSeq:
                break
            case (.duplicate(.conflict(let current)?), .conflict) where current.expense.id == last.planned[offset].id:
                see(current)
            default:
                failures.append("client \(index) mutation \(mutationId) sent again: \(answer); first answered \(original)")
            }
        }
        lastBatch = nil
    }

    /// Sends one push and checks its shape. Returns the answers in order, or nil after recording a failure.
    private func send(_ line: String, count: Int, first: Int64) throws -> [MutationStatus]? {
        let pushed: PushResult
        switch try wire.call("push", #"{"mutations":[\#(line)]}"#) {
        case .success(let value): pushed = try PushResult(json: value)
        case .failure(let error):
            failures.append("client \(index): push of mutations \(first)…\(first + Int64(count) - 1) answered \(error)")
            return nil
        }
        guard pushed.results.map(\.mutationId) == Array(first..<(first + Int64(count))) else {
            failures.append("client \(index): push of mutations \(first)… answered for \(pushed.results.map(\.mutationId))")
            return nil
        }
        if pushed.cursor < lastHead { failures.append("client \(index): the head went back from \(lastHead) to \(pushed.cursor)") }
        lastHead = max(lastHead, pushed.cursor)
        for result in pushed.results {
            if case .applied(_, let seq) = result.status, seq > pushed.cursor {
                failures.append("client \(index) mutation \(result.mutationId): applied at seq \(seq), above the push's head \(pushed.cursor)")
            }
        }
        return pushed.results.map(\.status)
    }

    private func take(_ answer: MutationStatus, of planned: Planned, mutationId: Int64) {
        switch answer {
        case .applied(let version, let seq):
            counts.applied += 1
            if planned.purpose == .restore || planned.purpose == .recreate, case .put = planned.effect { counts.restores += 1 }
            acknowledgements.append(SoakAcknowledgement(client: index, mutationId: mutationId, id: planned.id, version: version, seq: seq,
                                                        effect: planned.effect))
            let before = known[planned.id]
            switch planned.effect {
            case .put(let content): believe(planned.id, Known(version: version, deleted: false, content: content))
            case .delete: believe(planned.id, Known(version: version, deleted: true, content: before?.content ?? SoakContent(amount: 0, category: "", date: "", note: "")))
            }
        case .conflict(let current):
            counts.conflicts += 1
            if planned.purpose == .recreate, current.deleted { counts.recreatesMetDeletion += 1 }
            if current.expense.id != planned.id {
                failures.append("client \(index) mutation \(mutationId): a conflict carrying \(current.expense.id), not \(planned.id)")
            }
            see(current)
        default:
            failures.append("client \(index) mutation \(mutationId) (\(planned.purpose) of \(planned.id) at base \(planned.base)): \(answer)")
        }
    }

    /// A record the daemon showed: kept for the model's checks, and believed when it is news.
    private func see(_ record: Record) {
        sightings.insert(SoakSighting(record))
        believe(record.expense.id, Known(version: record.version, deleted: record.deleted, content: SoakContent(record)))
    }

    private func believe(_ id: UUID, _ belief: Known) {
        guard let before = known[id] else {
            known[id] = belief
            discovered.append(id)
            if belief.deleted { deletions.append(id) }
            return
        }
        guard belief.version >= before.version else { return }
        known[id] = belief
        if belief.deleted && !before.deleted { deletions.append(id) }
    }

    // MARK: Pulling

    /// Pulls from the cursor up to the head, in pages of a random size. No cursor is too old: a pull from above 0
    /// carries purged tombstones too (Protocol.md §5.9), so any error answer is a failure.
    private func pull() throws {
        counts.pulls += 1
        let limit = [3, 40, 1000][Int.random(in: 0..<3, using: &random)]
        while true {
            let page: PullResult
            switch try wire.call("pull", #"{"since":\#(cursor),"limit":\#(limit)}"#) {
            case .failure(let error):
                failures.append("client \(index): pull since \(cursor) answered \(error)")
                return
            case .success(let value): page = try PullResult(json: value)
            }
            if page.cursor < cursor { failures.append("client \(index): a pull since \(cursor) answered cursor \(page.cursor)") }
            for record in page.changes {
                see(record)
                view[record.expense.id] = record
            }
            cursor = page.cursor
            if !page.more { return }
        }
    }
}

extension SeededGenerator {
    /// A version-4 UUID from the generator's next 128 bits.
    mutating func uuid() -> UUID {
        let high = next(), low = next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for offset in 0..<8 {
            bytes[offset] = UInt8(truncatingIfNeeded: high >> (8 * offset))
            bytes[8 + offset] = UInt8(truncatingIfNeeded: low >> (8 * offset))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
