/// The record versions a transaction of the SQLite store wrote, kept for its multi-row writes before COMMIT
/// (``SQLiteLedgerStore/write(_:replacing:)``, `flushRecords`): read back by seq until then, written in seq order.
///
/// Arrays, not a dictionary by seq: a transaction's seqs are consecutive (each write takes `head + 1`), so a
/// version's place is its seq's offset from the first, and nothing is hashed per record. One value, so a write
/// changes it in one access (the ledger's thread, which bounds the push figures, runs this for every record).
struct PendingRecordVersions {
    /// The versions in the order written (a replaced one stays, no longer reachable by its seq).
    private(set) var versions: [StoredRecord] = []
    /// Each version's creation (``RecordCreation``; `nil`: its row implies none), by the same index.
    private(set) var creations: [RecordCreation?] = []
    /// For each seq from ``firstSeq``, its version's index in ``versions``; -1 where a budget, rule or setting
    /// took the seq, or a later version of the same record replaced it.
    private(set) var positions: [Int] = []
    /// The seq the transaction's first write takes.
    private(set) var firstSeq: Int64 = 1
    /// How many versions are not replaced: the rows to write; how many of them are new records
    /// (``isCreation(_:)``).
    private(set) var count = 0
    private(set) var newRecords = 0
    /// The seqs of committed rows that the transaction's versions replace: the rows to delete.
    private(set) var replacedRows: [Int64] = []

    /// Forgets everything; the next transaction's first write takes `firstSeq`.
    mutating func reset(firstSeq: Int64) {
        versions.removeAll(keepingCapacity: true)
        creations.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        replacedRows.removeAll(keepingCapacity: true)
        count = 0
        newRecords = 0
        self.firstSeq = firstSeq
    }

    /// Keeps `version`, which replaces `old` (`nil`: a new record) and carries `creation`: a version written earlier
    /// in this transaction is replaced before it reaches the table, a committed one has its row deleted.
    /// - Precondition: `version.seq` is past every seq kept so far.
    mutating func add(_ version: StoredRecord, replacing old: StoredRecord?, creation: RecordCreation? = nil) {
        if let old {
            if old.seq >= firstSeq {
                positions[Int(old.seq - firstSeq)] = -1
                count -= 1
                if Self.isCreation(old) { newRecords -= 1 }
            } else {
                replacedRows.append(old.seq)
            }
        }
        precondition(version.seq >= firstSeq + Int64(positions.count), "a write takes the next seq")
        // The seqs budgets, rules and settings took since the last record (none, almost always).
        while firstSeq + Int64(positions.count) < version.seq { positions.append(-1) }
        positions.append(versions.count)
        versions.append(version)
        creations.append(creation)
        count += 1
        if Self.isCreation(version) { newRecords += 1 }
    }

    /// Makes the version kept for `seq` carry `creation`; `false` when there is none.
    mutating func setCreation(_ creation: RecordCreation, seq: Int64) -> Bool {
        let offset = Int(seq - firstSeq)
        guard offset >= 0, offset < positions.count, positions[offset] >= 0 else { return false }
        creations[positions[offset]] = creation
        return true
    }

    /// The creation the version kept for `seq` carries (`nil`: none, or no such version).
    func creation(seq: Int64) -> RecordCreation? {
        let offset = Int(seq - firstSeq)
        guard offset >= 0, offset < positions.count, positions[offset] >= 0 else { return nil }
        return creations[positions[offset]]
    }

    /// Whether `version` is a new record's: version 1, live, every field at version 1 (what
    /// ``SQLiteLedgerRows/recordCreations`` writes as constants).
    static func isCreation(_ version: StoredRecord) -> Bool {
        version.version == 1 && !version.deleted && version.fieldVersions == FieldVersions(all: 1)
    }

    /// The version kept for `seq`, or `nil` when the transaction wrote none there.
    func version(seq: Int64) -> StoredRecord? {
        let offset = Int(seq - firstSeq)
        guard offset >= 0, offset < positions.count, positions[offset] >= 0 else { return nil }
        return versions[positions[offset]]
    }
}
