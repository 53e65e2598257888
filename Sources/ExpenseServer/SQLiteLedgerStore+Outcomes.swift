import ExpenseCore
import ExpenseProtocol
import FoundationEssentials
import SQLite

/// Kept outcomes (Protocol.md §7.6) as an append-only log of runs (`outcome_runs`, ``SQLiteLedgerStore/migrations``)
/// and an open run per client: a group commit adds each client's outcomes of the group to the open run its
/// `clients` row holds (migration 15), and appends that run to the log, packed (``PackedOutcomeRun``) and linked
/// to the client's run before, once it holds a few dozen; `clients.newest_run` is the newest appended.
///
/// The window is applied when an outcome is read (``TransactionOutcomeRuns``); the rows of runs wholly outside
/// their client's window are deleted later, by the sweep (`SQLiteLedgerStore+OutcomeSweep.swift`), which bounds
/// what is stored.
extension SQLiteLedgerStore {
    package func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws {
        clientLog.runs.keep(outcome, clientId: clientId, mutationId: mutationId)
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        let last = try lastMutationId(clientId: clientId)
        // This store is the file's only writer and a committed run never changes: a run read stays true.
        return try clientLog.runs.outcome(clientId: clientId, mutationId: mutationId, last: last,
                                           retention: outcomeRetention, keepsRead: true) { try committedRun(clientId, holding: $0) }
    }

    /// The committed run of `clientId` holding `mutationId`: its open run, or one found by walking the client's
    /// chain of runs back from its newest (``SQLiteClientLog/runWalk``, kept from one lookup to the next while that
    /// newest run is the same).
    private func committedRun(_ clientId: UUID, holding mutationId: Int64) throws -> PendingOutcomeRun? {
        let client = try committedClient(clientId)
        if let open = client.open?.run, open.outcome(mutationId) != nil { return open }
        let newest = client.newestRun
        var walk = clientLog.runWalk.flatMap { $0.clientId == clientId && $0.newestRun == newest ? $0 : nil }
            ?? OutcomeRunWalk(clientId: clientId, newestRun: newest)
        defer { clientLog.runWalk = walk }
        guard let header = try walk.header(holding: mutationId, reading: runHeader) else { return nil }
        let count = try header.count()
        let outcomes = try connection.cached(literal: "SELECT outcomes FROM outcome_runs WHERE run = ?1")
            .first([.integer(header.run)]) { row in try row.withBlob(0) { try PackedOutcomeRun.decode($0, count: count) } }
        return outcomes.map { PendingOutcomeRun(first: header.first, outcomes: $0) }
    }

    /// Outcomes kept for `clientId`: those inside its window (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) throws -> Int {
        let last = try lastMutationId(clientId: clientId)
        let client = try committedClient(clientId)
        var count = client.open.map {
            ConsumedOutcome.keptCount(from: $0.run.first, through: $0.run.last, last: last, retention: outcomeRetention)
        } ?? 0
        var run = client.newestRun
        while run != 0, let header = try runHeader(run, clientId), header.last > last - outcomeRetention {
            count += ConsumedOutcome.keptCount(from: header.first, through: header.last, last: last,
                                               retention: outcomeRetention)
            run = header.previous
        }
        return Int(count)
    }

    /// Writes what the transaction changed of its clients, in the same transaction as the effects they account
    /// for: each client's outcomes join its open run, which its `clients` row holds; an open run that would grow
    /// past ``OpenOutcomeRun/maximumCount`` outcomes or ``OpenOutcomeRun/maximumBytes`` is appended to
    /// `outcome_runs` instead (linked to the client's newest run) and the row's open run is empty again. Then one
    /// `clients` row per client that consumed mutations or kept outcomes. Sets ``SQLiteClientLog/pendingRows`` and
    /// ``SQLiteClientLog/pendingPosition``.
    ///
    /// A single push's outcomes so cost no row of their own: its client's row, written anyway for its last
    /// mutationId, carries them, and one push in every few dozen moves them to `outcome_runs`.
    /// - Returns: the number of runs appended to `outcome_runs`.
    func flushClientLog() throws -> Int {
        var appended: [(key: Int64, previous: Int64, clientId: UUID, run: PendingOutcomeRun, bytes: [UInt8])] = []
        var position = clientLog.position
        func append(_ run: PendingOutcomeRun, bytes: [UInt8], of clientId: UUID, to row: inout SQLiteClientLog.Row) {
            position += Int64(run.outcomes.count)
            appended.append((position, row.newestRun, clientId, run, bytes))
            row.newestRun = position
        }
        clientLog.pendingRows.removeAll(keepingCapacity: true)
        for clientId in clientLog.runs.pending.clients {
            guard let kept = clientLog.runs.pending[clientId] else { continue }
            var row = try committedClient(clientId)
            row.lastMutationId = clientLog.pendingLastMutationIds[clientId] ?? row.lastMutationId
            let next = OpenOutcomeRun.committing(kept, after: row.open)
            for run in next.appended { append(run.run, bytes: run.bytes, of: clientId, to: &row) }
            row.open = next.open
            clientLog.pendingRows.append((clientId, row))
        }
        for (clientId, last) in clientLog.pendingLastMutationIds where clientLog.runs.pending[clientId] == nil {
            var row = try committedClient(clientId)
            row.lastMutationId = last
            clientLog.pendingRows.append((clientId, row))
        }
        clientLog.pendingPosition = position
        try rows.outcomeRuns.run(count: appended.count) { row, index in
            let run = appended[index]
            try row.integer(run.key)
            try Self.bind(run.clientId, to: &row)
            try row.integer(run.run.first)
            try row.integer(run.run.last)
            try row.integer(run.previous)
            try run.bytes.withUnsafeBytes { try row.blob($0) }
        }
        try rows.clients.run(count: clientLog.pendingRows.count) { row, index in
            let (clientId, client) = clientLog.pendingRows[index]
            try Self.bind(clientId, to: &row)
            try row.integer(client.lastMutationId)
            try row.integer(client.newestRun)
            if let open = client.open {
                try row.integer(open.run.first)
                try row.integer(open.run.last)
                try open.bytes.withUnsafeBytes { try row.blob($0) }
            } else {
                try row.integer(0)
                try row.integer(0)
                try row.null()
            }
        }
        return appended.count
    }

    /// The open run in columns `open_first, open_last, open_outcomes` of a `clients` row from `column` on; `nil`
    /// when the row holds none (`open_outcomes` NULL).
    /// - Throws: ``LedgerError/storageFailed(_:)`` when it does not decode (changed behind the daemon's back).
    static func openRun(_ row: SQLiteRow, from column: Int32) throws -> OpenOutcomeRun? {
        guard !row.isNull(column + 2) else { return nil }
        let header = OutcomeRunWalk.Header(run: 0, first: row.int64(column), last: row.int64(column + 1), previous: 0)
        guard header.first <= header.last else {
            throw PackedOutcomeRun.damaged("an open run has mutationIds \(header.first)…\(header.last)")
        }
        let count = try header.count()
        let bytes = row.blob(column + 2)
        let outcomes = try bytes.withUnsafeBytes { try PackedOutcomeRun.decode($0, count: count) }
        return OpenOutcomeRun(run: PendingOutcomeRun(first: header.first, outcomes: outcomes), bytes: bytes)
    }

    /// The header of `run` when it is a run of `clientId`; `nil` when there is no such row or it is another
    /// client's (a run a link named was deleted; ids are never reused, so that is the end of the chain).
    func runHeader(_ run: Int64, _ clientId: UUID) throws -> OutcomeRunWalk.Header? {
        let header = try connection.cached(literal: """
            SELECT client, first_mutation_id, last_mutation_id, previous FROM outcome_runs WHERE run = ?1
            """).first([.integer(run)]) { row -> OutcomeRunWalk.Header? in
            return row.withBlob(0, Self.uuid(raw:)) == clientId ? OutcomeRunWalk.Header(run: run, first: row.int64(1), last: row.int64(2), previous: row.int64(3)) : nil
        }
        guard let header = header ?? nil else { return nil }
        guard header.previous < header.run, header.first <= header.last else {
            throw PackedOutcomeRun.damaged("run \(run) has mutationIds \(header.first)…\(header.last) and previous \(header.previous)")
        }
        return header
    }

    /// The highest run key in the file, or that a `clients` row names (the run may have been deleted): the
    /// ``SQLiteClientLog/position`` a store opening the file continues from, so no key is used twice.
    static func lastOutcomePosition(_ connection: SQLiteConnection) throws -> Int64 {
        let runs = try connection.prepare("SELECT coalesce(max(run), 0) FROM outcome_runs").first { $0.int64(0) } ?? 0
        let named = try connection.prepare("SELECT coalesce(max(newest_run), 0) FROM clients").first { $0.int64(0) } ?? 0
        return max(runs, named)
    }
}

/// The committed runs of one client as far as lookups walked them back from its newest: a push that resends many
/// mutations (after a lost answer) walks the chain once, not once per mutation (``TransactionOutcomeRuns`` keeps the
/// run it decoded). Valid while the client's newest run is ``newestRun``: a commit that appends another starts a
/// new walk; runs the sweep deletes are outside the window, which lookups check first.
struct OutcomeRunWalk {
    /// A run without its outcomes.
    struct Header {
        var run: Int64
        var first: Int64
        var last: Int64
        var previous: Int64

        /// The number of outcomes the run holds.
        func count() throws -> Int {
            let (difference, overflow) = last.subtractingReportingOverflow(first)
            guard !overflow, difference < Int64(Int32.max) else {
                throw PackedOutcomeRun.damaged("run \(run) has mutationIds \(first)…\(last)")
            }
            return Int(difference) + 1
        }
    }

    let clientId: UUID
    let newestRun: Int64
    /// Newest first; each run's `previous` is the next one's `run`.
    var headers: [Header] = []
    /// Whether the chain ended after the last header.
    var ended = false

    init(clientId: UUID, newestRun: Int64) {
        self.clientId = clientId
        self.newestRun = newestRun
        ended = newestRun == 0
    }

    /// The header of the run holding `mutationId`, walking further back with `read` when the headers walked so far
    /// end above it; `nil` when no run of the chain holds it.
    mutating func header(holding mutationId: Int64, reading read: (Int64, UUID) throws -> Header?) throws -> Header? {
        if let oldest = headers.last, oldest.first <= mutationId {
            // Headers are in descending order: the first one starting at or below `mutationId`.
            var low = 0, high = headers.count - 1
            while low < high {
                let middle = (low + high) / 2
                if headers[middle].first <= mutationId { high = middle } else { low = middle + 1 }
            }
            return mutationId <= headers[low].last ? headers[low] : nil
        }
        while !ended {
            let next = headers.last?.previous ?? newestRun
            guard next != 0, let header = try read(next, clientId) else {
                ended = true
                break
            }
            headers.append(header)
            if header.first <= mutationId { return mutationId <= header.last ? header : nil }
        }
        return nil
    }
}
