import ExpenseProtocol
import Foundation

/// What an expense holds as the compaction soak's clients send and compare it (always the ledger's currency).
struct SoakContent: Hashable, Sendable, CustomStringConvertible {
    var amount: Int64
    var category: String
    var date: String
    var note: String

    init(amount: Int64, category: String, date: String, note: String) {
        self.amount = amount
        self.category = category
        self.date = date
        self.note = note
    }

    init(_ record: Record) {
        self.init(amount: record.expense.amount, category: record.expense.category, date: record.expense.date.description,
                  note: record.expense.note)
    }

    /// The `fields` object of a put that sets every field (the texts need no escaping: the soak makes them).
    var fieldsJSON: String {
        #"{"amount":\#(amount),"category":"\#(category)","date":"\#(date)","note":"\#(note)"}"#
    }

    var description: String { "\(amount) \(category) \(date) '\(note)'" }
}

/// What an applied mutation did to its record. Every put of the soak sends every field, so an applied put leaves
/// exactly its fields whatever it merged over (Protocol.md §7.4).
enum SoakEffect: Hashable, Sendable {
    case put(SoakContent)
    case delete
}

/// One `applied` answer (or the applied `original` of a `duplicate`): the daemon's word that the record `id`
/// is at `version`, at `seq`, with `effect`'s state.
struct SoakAcknowledgement: Hashable, Sendable {
    var client: Int
    var mutationId: Int64
    var id: UUID
    var version: Int64
    var seq: Int64
    var effect: SoakEffect
}

/// A record as the daemon showed it: a conflict's `current` or a pulled record.
struct SoakSighting: Hashable, Sendable {
    var id: UUID
    var version: Int64
    var seq: Int64
    var deleted: Bool
    var content: SoakContent

    init(_ record: Record) {
        id = record.expense.id
        version = record.version
        seq = record.seq
        deleted = record.deleted
        content = SoakContent(record)
    }
}

/// The ledger as the acknowledgements of every client describe it, and the checks of what the daemon showed
/// against it.
///
/// What is exactly checkable although the clients race: every change of a record's version is one applied
/// mutation, and every mutation of the soak is answered (a push that fails is a failure of the run), so the
/// applied answers of all clients together name every version of every record: 1 … its last, each with one seq
/// and one state. Answers that change nothing (a put equal to the record, a delete of a tombstone) repeat the
/// version and seq they met, and must agree with the answer that made them. Conflicts carry no effect.
struct SoakModel {
    /// What one version of a record is.
    struct Version: Equatable {
        var seq: Int64
        var effect: SoakEffect
        var client: Int
        var mutationId: Int64
    }

    /// id → version → what it is.
    private(set) var versions: [UUID: [Int64: Version]] = [:]
    /// What the acknowledgements contradict among themselves.
    private(set) var failures: [String] = []

    init(_ acknowledgements: [SoakAcknowledgement]) {
        var owners: [Int64: (UUID, Int64)] = [:]
        for ack in acknowledgements {
            let version = Version(seq: ack.seq, effect: ack.effect, client: ack.client, mutationId: ack.mutationId)
            if let earlier = versions[ack.id]?[ack.version] {
                if earlier.seq != ack.seq || earlier.effect != ack.effect {
                    failures.append("\(ack.id) version \(ack.version) was acknowledged as seq \(earlier.seq) \(earlier.effect) (client "
                                    + "\(earlier.client) mutation \(earlier.mutationId)) and as seq \(ack.seq) \(ack.effect) (client "
                                    + "\(ack.client) mutation \(ack.mutationId))")
                }
                continue
            }
            versions[ack.id, default: [:]][ack.version] = version
            if let owner = owners[ack.seq], owner != (ack.id, ack.version) {
                failures.append("seq \(ack.seq) was acknowledged for \(owner.0) version \(owner.1) and for \(ack.id) version \(ack.version)")
            }
            owners[ack.seq] = (ack.id, ack.version)
        }
        for (id, byVersion) in versions {
            let numbers = byVersion.keys.sorted()
            guard let last = numbers.last, numbers == Array(1...last) else {
                failures.append("\(id): acknowledged versions \(numbers) are not 1 … the last (a change nobody acknowledged, or one lost)")
                continue
            }
            for number in numbers.dropFirst() {
                guard let version = byVersion[number], let previous = byVersion[number - 1] else { continue }
                if version.seq <= previous.seq {
                    failures.append("\(id): version \(number) has seq \(version.seq), not above version \(number - 1)'s \(previous.seq)")
                }
                // A delete applies to a live record only, so the version before a deletion is a put.
                if version.effect == .delete, previous.effect == .delete {
                    failures.append("\(id): versions \(number - 1) and \(number) are both deletions")
                }
            }
            if byVersion[1]?.effect == .delete { failures.append("\(id): version 1 is a deletion") }
        }
    }

    /// The last version of each record and what it is.
    var finalVersions: [UUID: (version: Int64, what: Version)] {
        versions.compactMapValues { byVersion in
            byVersion.max { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// What is wrong with a record the daemon showed: its version must have been acknowledged, at the same seq,
    /// with the same state (a tombstone keeps the values of the put before it).
    func check(_ sighting: SoakSighting) -> String? {
        guard let version = versions[sighting.id]?[sighting.version] else {
            return "the daemon showed \(sighting.id) at version \(sighting.version) (seq \(sighting.seq)), which no applied answer gave"
        }
        if version.seq != sighting.seq {
            return "the daemon showed \(sighting.id) version \(sighting.version) at seq \(sighting.seq); it was acknowledged at seq \(version.seq)"
        }
        switch version.effect {
        case .put(let content):
            if sighting.deleted || sighting.content != content {
                return "the daemon showed \(sighting.id) version \(sighting.version) as \(sighting.deleted ? "deleted " : "")\(sighting.content); "
                    + "it was acknowledged as \(content)"
            }
        case .delete:
            if !sighting.deleted {
                return "the daemon showed \(sighting.id) version \(sighting.version) live; that version was an acknowledged deletion"
            }
            if case .put(let before)? = versions[sighting.id]?[sighting.version - 1]?.effect, before != sighting.content {
                return "the tombstone of \(sighting.id) version \(sighting.version) holds \(sighting.content), not the last values \(before)"
            }
        }
        return nil
    }

    /// What is wrong with the daemon's final full pull: each record's last acknowledged version, nothing else —
    /// a deletion as a tombstone of that version or, once purged, absent; no id twice, no seq twice.
    func check(finalPull records: [Record]) -> [String] {
        var problems: [String] = []
        var byId: [UUID: Record] = [:], seqs: Set<Int64> = []
        for record in records {
            if byId.updateValue(record, forKey: record.expense.id) != nil { problems.append("the pull carries \(record.expense.id) twice") }
            if !seqs.insert(record.seq).inserted { problems.append("the pull carries seq \(record.seq) twice") }
            if versions[record.expense.id] == nil { problems.append("the pull carries \(record.expense.id), which no applied answer named") }
            if let problem = check(SoakSighting(record)) { problems.append(problem) }
        }
        for (id, last) in finalVersions {
            let record = byId[id]
            switch last.what.effect {
            case .put(let content):
                guard let record, !record.deleted, record.version == last.version else {
                    problems.append("acknowledged \(id) version \(last.version) (\(content), client \(last.what.client) mutation "
                                    + "\(last.what.mutationId)) is \(record.map { "version \($0.version)\($0.deleted ? " deleted" : "")" } ?? "missing") "
                                    + "in the final pull")
                    continue
                }
            case .delete:
                if let record, !record.deleted || record.version != last.version {
                    problems.append("acknowledged deletion of \(id) at version \(last.version) (client \(last.what.client) mutation "
                                    + "\(last.what.mutationId)) is version \(record.version)\(record.deleted ? " deleted" : " live") in the final pull")
                }
            }
        }
        return problems
    }

    /// The records whose last acknowledged change is a deletion: id, version and seq.
    var finalDeletions: [(id: UUID, version: Int64, seq: Int64)] {
        finalVersions.compactMap { id, last in last.what.effect == .delete ? (id, last.version, last.what.seq) : nil }
            .sorted { $0.seq < $1.seq }
    }
}
