import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// A ``LedgerStore`` in memory: the reference the SQLite store is checked against (one contract suite), and
/// the store the rules are tested with apart from SQLite.
package final class InMemoryLedgerStore: LedgerStore {
    /// Internal (not private) so that the store's other kinds of record (`InMemoryLedgerStore+Data.swift`)
    /// live in the same state and roll back with it.
    struct State {
        var records: [UUID: StoredRecord] = [:]
        var idBySeq: [Int64: UUID] = [:]
        var totals: [Currency: Int64] = [:]
        var clients: [UUID: Int64] = [:]
        /// Per client, the kept outcomes by mutationId (at most ``outcomeRetention`` each).
        var outcomes: [UUID: [Int64: ConsumedOutcome]] = [:]
        var head: Int64 = 0
        /// The history entries in seq order, and the purge horizon (`InMemoryLedgerStore+History.swift`).
        var history: [HistoryEntry] = []
        var horizon: Int64 = 0
        /// Budgets, rules and settings (Protocol.md §10), by id and by seq.
        var data: [UUID: StoredDataRecord] = [:]
        var dataIdBySeq: [Int64: UUID] = [:]
    }

    var state = State()
    /// The ledger's tokens by name (`InMemoryLedgerStore+Tokens.swift`); outside ``transaction(_:)``, as in SQLite.
    var storedTokens: [String: StoredToken] = [:]
    /// What a test injects (``StoreFaults``: its `commit` point, just before a commit).
    let faults: StoreFaults?

    package let outcomeRetention: Int64

    package init(outcomeRetention: Int64 = ConsumedOutcome.defaultRetention, faults: StoreFaults? = nil) {
        self.outcomeRetention = outcomeRetention
        self.faults = faults
    }

    package var head: Int64 { state.head }

    package func record(id: UUID) throws -> StoredRecord? { state.records[id] }

    package func liveTotal(currency: Currency) throws -> Int64 { state.totals[currency] ?? 0 }

    package func lastMutationId(clientId: UUID) throws -> Int64 { state.clients[clientId] ?? 0 }

    package func setLastMutationId(clientId: UUID, _ mutationId: Int64) throws {
        state.clients[clientId] = mutationId
    }

    package func keepOutcome(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) throws {
        state.outcomes[clientId, default: [:]][mutationId] = outcome
        let oldest = mutationId - outcomeRetention
        state.outcomes[clientId]?[oldest] = nil
        if let kept = state.outcomes[clientId], kept.count > outcomeRetention {
            state.outcomes[clientId] = kept.filter { $0.key > oldest }
        }
    }

    package func outcome(clientId: UUID, mutationId: Int64) throws -> ConsumedOutcome? {
        state.outcomes[clientId]?[mutationId]
    }

    /// Outcomes kept for `clientId` (tests of the retention window).
    package func keptOutcomeCount(clientId: UUID) -> Int { state.outcomes[clientId]?.count ?? 0 }

    package func write(_ record: StoredRecord, replacing old: StoredRecord?) throws {
        try checkNextSeq(record.seq)
        if let old {
            state.idBySeq[old.seq] = nil
            if !old.deleted { state.totals[old.expense.currency, default: 0] -= old.expense.amount }
        }
        if !record.deleted {
            state.totals[record.expense.currency] = try Self.checkedTotal(state.totals[record.expense.currency] ?? 0,
                                                                          adding: record.expense.amount, currency: record.expense.currency)
        }
        state.records[record.record.expense.id] = record
        state.idBySeq[record.seq] = record.record.expense.id
        state.head = record.seq
    }

    package func changes(since: Int64, limit: Int, snapshot: Int64?, maximumBytes: Int) throws -> EncodedChanges {
        EncodedChanges(changedRecords(since: since, limit: limit, snapshot: snapshot))
    }

    private func changedRecords(since: Int64, limit: Int, snapshot: Int64?) -> [Record] {
        var result: [Record] = []
        var seq = since + 1
        let cut = Self.purgedCut(since: since, snapshot: snapshot)
        while seq <= state.head && result.count < limit {
            if let id = state.idBySeq[seq], let stored = state.records[id], !stored.deleted || seq > cut || seq > state.horizon {
                result.append(stored.record)
            }
            seq += 1
        }
        return result
    }

    package func summary(_ query: SummaryQuery) throws -> Summary {
        try Aggregator.summarize(state.records.values.filter { !$0.deleted }.map(\.expense), query: query)
    }

    package func transaction<T>(_ body: () throws -> T) throws -> T {
        let saved = state
        do {
            let value = try body()
            try faults?.check(.commit)
            return value
        } catch {
            state = saved
            throw error
        }
    }
}
