import Synchronization

/// Where a test may make a store fail, as a full disk or a failed write/fsync would.
package enum StoreFaultPoint: Sendable, Hashable {
    /// Writing one record.
    case write
    /// Committing (the fsync).
    case commit
    /// A checkpoint of the WAL into the database file that the ledger's thread runs between two commits (the
    /// background one not keeping up).
    case checkpoint
    /// A checkpoint on ``WALCheckpointer``'s own thread and connection.
    case backgroundCheckpoint
}

/// Faults a test injects into a store: at a ``StoreFaultPoint``, an error to throw instead of going on. Given to a
/// store when it is made (or to a ``LedgerDirectory`` for every store it opens); the daemon gives none, and a
/// store given some checks one atomic flag per point until a fault is set.
package final class StoreFaults: Sendable {
    private let armed = Atomic<Bool>(false)
    private let fault = Mutex<(@Sendable (StoreFaultPoint) -> (any Error)?)?>(nil)

    package init() {}

    /// From now on, `fault` decides at each point: the error it returns is thrown there; `nil` clears it.
    package func inject(_ fault: (@Sendable (StoreFaultPoint) -> (any Error)?)?) {
        self.fault.withLock { $0 = fault }
        armed.store(fault != nil, ordering: .releasing)
    }

    /// Throws the error the injected fault gives at `point`, if any.
    package func check(_ point: StoreFaultPoint) throws {
        guard armed.load(ordering: .acquiring) else { return }
        if let error = fault.withLock({ $0 })?(point) { throw error }
    }
}
