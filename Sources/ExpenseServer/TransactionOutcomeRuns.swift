import FoundationEssentials

/// A SQL store's kept outcomes as one transaction sees them (Protocol.md §7.6): the runs it keeps, written when it
/// commits, and the committed runs it has read; and the one lookup of an outcome over them, window first. The
/// SQLite and the PostgreSQL store each hold one and differ only in how they read a committed run.
///
/// The window (an outcome is answered exactly while `last - outcomeRetention < mutationId <= last`,
/// ``ConsumedOutcome/isKept(_:last:retention:)``) is applied when an outcome is read, so what leaves it is
/// forgotten in the transaction that moves the client's ids on, whatever rows are left: a store deletes expired
/// runs later or in the same transaction, never before the window stops answering for them.
///
/// - Important: ``removeAll()`` when the transaction ends, committed or not: kept runs belong to it, and a run
///   read under its lock may change once the lock is gone (another daemon of the same PostgreSQL database).
struct TransactionOutcomeRuns {
    /// The outcomes the transaction keeps, one run per client.
    private(set) var pending = PendingOutcomeRuns()
    /// The committed run each client's last lookup read: a push resending many mutations (after a lost answer)
    /// reads and decodes each run once.
    private var read: [UUID: PendingOutcomeRun] = [:]

    /// Keeps `outcome` for the client's `mutationId`.
    mutating func keep(_ outcome: ConsumedOutcome, clientId: UUID, mutationId: Int64) {
        pending.keep(outcome, clientId: clientId, mutationId: mutationId)
    }

    /// The kept outcome of the client's `mutationId`, or `nil` when it is outside the window or not kept: from
    /// the transaction's own runs, then the runs it read, then storage.
    /// - Parameters:
    ///   - last: the client's last consumed mutationId as committed (or set by the transaction); the
    ///     transaction's own outcomes move the window on before a push sets it, when the push ends.
    ///   - retention: the store's ``LedgerStore/outcomeRetention``.
    ///   - keepsRead: whether the run `readRun` reads may serve the transaction's later lookups (not outside a
    ///     transaction, where nothing locks it nor forgets it).
    ///   - readRun: reads the committed run of the client holding a mutationId, `nil` when none does.
    /// - Throws: what `readRun` throws.
    mutating func outcome(clientId: UUID, mutationId: Int64, last: Int64, retention: Int64, keepsRead: Bool,
                          readRun: (Int64) throws -> PendingOutcomeRun?) throws -> ConsumedOutcome? {
        let kept = pending[clientId]
        guard ConsumedOutcome.isKept(mutationId, last: max(last, kept?.last ?? 0), retention: retention) else { return nil }
        if let outcome = kept?.outcome(mutationId) ?? read[clientId]?.outcome(mutationId) { return outcome }
        guard let run = try readRun(mutationId) else { return nil }
        if keepsRead { read[clientId] = run }
        return run.outcome(mutationId)
    }

    /// Forgets the transaction's runs, kept and read.
    mutating func removeAll() {
        pending.removeAll()
        read.removeAll(keepingCapacity: true)
    }
}
