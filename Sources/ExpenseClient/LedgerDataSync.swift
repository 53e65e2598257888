import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite

/// Sends the cache's queued budget, rule and setting changes and pulls the daemon's (Protocol.md §10), after the
/// expense sync, on a connection of its own that asks for the kinds in `hello`.
///
/// **Choice:** it speaks as a second client id derived from the installation's (``dataClientId(for:)``), so its
/// mutationIds form their own exactly-once sequence on the daemon and never interleave with the expense outbox's;
/// the rules of Protocol.md §7.6 hold for it unchanged (numbered before sending, resent with the same ids after
/// a lost answer, `duplicate` with the original outcome). Its cursor is its own too (`data_cursor`).
package struct LedgerDataSync {
    package let cache: LedgerDataCache
    package let remote: RemoteConfiguration
    package let clientId: UUID
    package var clientName: String?
    package var timeout: Duration = .seconds(30)
    package var connectTimeout: Duration = SyncConnection.defaultConnectTimeout

    /// The namespace of data client ids.
    static let namespace = UUID(uuid: (0x47, 0x1f, 0x2a, 0x90, 0x3b, 0x6e, 0x4d, 0x2c, 0x9a, 0x05, 0xe8, 0x71, 0x14, 0xc3, 0x5d, 0xb2))

    /// The client id budget, rule and setting changes are sent under: derived from the installation's.
    package static func dataClientId(for clientId: UUID) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: NameBasedUUID.bytes(clientId))
    }

    package init(cache: LedgerDataCache, remote: RemoteConfiguration, clientId: UUID) {
        self.cache = cache
        self.remote = remote
        self.clientId = clientId
    }

    /// What one run did.
    package struct Report: Equatable, Sendable {
        package var sent = 0
        package var pulled = 0
        package var conflicts = 0
        package var rejected = 0
        /// `false` when the daemon does not serve the kinds (an older daemon): nothing was sent.
        package var served = true
    }

    /// One push of the queue and one pull to the head.
    /// - Throws: ``SyncError``, ``SQLite/SQLiteError``.
    package func run() throws -> Report {
        var report = Report()
        let connection = try SyncConnection(remote: remote, clientId: Self.dataClientId(for: clientId), clientName: clientName,
                                            timeout: timeout, connectTimeout: connectTimeout, kinds: RecordKind.additional)
        defer { connection.close() }
        guard let served = connection.hello.kinds, Set(served) == Set(RecordKind.additional) else {
            report.served = false
            return report
        }
        try push(on: connection, lastConsumed: connection.hello.lastMutationId, report: &report)
        try pull(on: connection, report: &report)
        return report
    }

    private var db: SQLiteConnection { cache.connection }

    private func push(on connection: SyncConnection, lastConsumed: Int64, report: inout Report) throws {
        // Number the entries durably before sending (Protocol.md §7.6): one the daemon consumed (at or below
        // `hello`'s lastMutationId) keeps its id and comes back `duplicate` with what was decided; every other one
        // was never consumed (its answer was lost before the daemon took it, or a restored daemon forgot it) and is
        // numbered again, in queue order, from lastMutationId + 1, so no id is skipped (no `mutation_gap`).
        var entries = try cache.pendingChanges()
        guard !entries.isEmpty else { return }
        var next = lastConsumed + 1
        try db.transaction {
            for index in entries.indices where (entries[index].mutationId ?? Int64.max) > lastConsumed {
                entries[index].mutationId = next
                try db.cached("UPDATE data_pending SET mutation_id = ?1 WHERE position = ?2").run([.integer(next), .integer(entries[index].position)])
                next += 1
            }
        }
        for batch in stride(from: 0, to: entries.count, by: 500).map({ Array(entries[$0..<min($0 + 500, entries.count)]) }) {
            let result = try connection.call(PushRequest(mutations: batch.compactMap { entry in entry.mutationId.map { entry.mutation($0) } }))
            let byId = Dictionary(batch.compactMap { entry in entry.mutationId.map { ($0, entry) } }, uniquingKeysWith: { a, _ in a })
            try db.transaction {
                for item in result.results {
                    guard let entry = byId[item.mutationId] else { continue }
                    var status = item.status
                    if case .duplicate(let original?) = status { status = original.status }
                    switch status {
                    case .applied(let version, _):
                        report.sent += 1
                        try db.cached("UPDATE data_record SET base_version = max(base_version, ?1) WHERE id = ?2")
                            .run([.integer(version), .id(entry.id)])
                        try rebaseLater(than: entry, to: version)
                    case .dataConflict(let current):
                        report.conflicts += 1
                        try keepConflict(entry, theirs: current)
                    case .conflict, .duplicate:
                        break  // consumed; the pull brings the daemon's state
                    case .rejected(let rejection) where rejection.reason == "mutation_gap":
                        // Not consumed: stays queued, numbered again by the next sync.
                        try db.cached("UPDATE data_pending SET mutation_id = NULL WHERE position = ?1").run([.integer(entry.position)])
                        continue
                    case .rejected:
                        report.rejected += 1
                    }
                    try db.cached("DELETE FROM data_pending WHERE position = ?1").run([.integer(entry.position)])
                }
            }
        }
    }

    /// A later queued change of the same record made on top of `entry` takes the version `entry` was applied at.
    private func rebaseLater(than entry: DataPendingChange, to version: Int64) throws {
        try db.cached("UPDATE data_pending SET base_version = ?1 WHERE id = ?2 AND position > ?3 AND mutation_id IS NULL AND base_version = ?4")
            .run([.integer(version), .id(entry.id), .integer(entry.position), .integer(entry.baseVersion)])
    }

    /// A conflict is kept with both sides, and the record shows the daemon's side until the person sets it again
    /// (which sends their values on top of the daemon's version: "mine"), or leaves it ("theirs").
    private func keepConflict(_ entry: DataPendingChange, theirs: DataRecord) throws {
        var writer = JSONWriter()
        theirs.write(to: &writer)
        try db.cached("INSERT OR REPLACE INTO data_conflict (id, kind, mine, theirs) VALUES (?1, ?2, ?3, ?4)").run([
            .id(entry.id), .text(entry.kind.rawValue), entry.fields.map { .text(LedgerDataCache.text($0)) } ?? .null,
            .text(String(decoding: writer.bytes, as: UTF8.self)),
        ])
        try show(theirs)
    }

    private func pull(on connection: SyncConnection, report: inout Report) throws {
        var since = try meta("data_cursor") ?? 0
        if since > connection.hello.cursor { since = 0 }  // another history: start again
        while true {
            guard let page = try Self.page(on: connection, since: since) else {
                // The daemon refused the cursor (compacted below it, Protocol.md §5.9, or a replaced history):
                // read the kinds again from the start; the queued changes are untouched.
                since = 0
                continue
            }
            try db.transaction {
                for record in page.dataChanges {
                    report.pulled += 1
                    let pending = try db.cached("SELECT count(*) FROM data_pending WHERE id = ?1")
                        .first([.id(record.id)]) { $0.int64(0) } ?? 0
                    // A record with a local change waiting keeps showing it (its base stays what the person saw).
                    if pending == 0 { try show(record) }
                }
                try setMeta("data_cursor", page.cursor)
            }
            since = page.cursor
            if !page.more { return }
        }
    }

    /// The page after `since`, or `nil` when the daemon refuses a cursor above 0 (`cursor_expired`, `invalid_cursor`).
    private static func page(on connection: SyncConnection, since: Int64) throws -> PullResult? {
        do {
            // Only the kinds: the expenses are the expense sync's, and a first sync would otherwise read
            // every expense a second time here. A daemon that predates `expenses` sends them anyway; they
            // are left alone (`dataChanges` only).
            return try connection.call(PullRequest(since: since, limit: 1000, expenses: false))
        } catch SyncError.historyReplaced(_) where since > 0 {
            return nil
        }
    }

    /// The local view becomes the daemon's record.
    private func show(_ record: DataRecord) throws {
        try db.cached("""
            INSERT INTO data_record (id, kind, fields, deleted, base_version) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, fields = excluded.fields, deleted = excluded.deleted,
                base_version = excluded.base_version
            """).run([.id(record.id), .text(record.kind.rawValue), .text(LedgerDataCache.text(record.fields)),
                      .integer(record.deleted ? 1 : 0), .integer(record.version)])
    }

    private func meta(_ key: String) throws -> Int64? {
        try db.cached("SELECT value FROM meta WHERE key = ?1").first([.text(key)]) { Int64($0.text(0)) } ?? nil
    }

    private func setMeta(_ key: String, _ value: Int64) throws {
        try db.cached("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(key), .text(String(value))])
    }
}

extension LedgerDataCache {
    /// The open conflicts on budgets, rules and settings: the record's id and kind.
    package func conflicts() throws -> [(id: UUID, kind: RecordKind)] {
        try connection.cached("SELECT id, kind FROM data_conflict ORDER BY id").map([]) { row in
            (row.id(0) ?? UUID(), RecordKind(rawValue: row.text(1)) ?? .budget)
        }
    }

    /// Drops the conflict kept for `id` (the person set the record again, or accepted the daemon's side).
    package func removeConflict(id: UUID) throws {
        try connection.cached("DELETE FROM data_conflict WHERE id = ?1").run([.id(id)])
    }
}
