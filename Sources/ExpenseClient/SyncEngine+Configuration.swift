import ExpenseProtocol
import Foundation

extension SyncEngine {
    /// What the caller of a ``SyncEngine`` chooses: how hard to try, how long to wait, how big a page, what to call
    /// itself, whom to tell, and whether recurring occurrences go out.
    ///
    /// These are options, not test hooks: the CLI sets them from its flags and environment
    /// (`EXPENSE_SYNC_ATTEMPTS`, `EXPENSE_CONNECT_TIMEOUT`, `--verbose`, a terminal), a test from the load of its
    /// machine, and either may set any of them after init. What only a test replaces is in ``Dependencies``.
    package struct Configuration {
        /// The name the daemon shows for this client (`hello`'s `clientName`).
        package var clientName: String? = ProcessInfo.processInfo.hostName
        /// Attempts before giving up on an unreachable daemon (the first included).
        package var attempts = 4
        /// The wait before the second attempt; doubled each time, at most ``maximumBackoff``.
        package var initialBackoff: Duration = .milliseconds(200)
        /// The longest wait between two attempts.
        package var maximumBackoff: Duration = .seconds(3)
        /// How long a call waits for its answer.
        package var timeout: Duration = .seconds(30)
        /// The most one attempt waits for the TCP connection and the answer to `hello` together
        /// (`EXPENSE_CONNECT_TIMEOUT`). A server that accepts but does not answer within it is given up on, not retried.
        package var connectTimeout: Duration = SyncConnection.defaultConnectTimeout
        /// Told what the sync is doing (connecting, retrying, push and pull progress), for a progress display.
        package var progress: ((SyncEvent) -> Void)?
        /// Records asked for per `pull` page (the protocol's maximum: fewer round trips and commits).
        package var pullLimit = PullRequest.limitRange.upperBound
        /// Told what happens, for `--verbose` or logs.
        package var log: (String) -> Void = { _ in }
        /// Whether a sync materialises the recurring occurrences due, up to the day of
        /// ``Dependencies/clock`` in the ledger's time zone (``LocalLedger/materialiseRecurring(today:limit:)``).
        /// `expense sync` does, so occurrences go out with it (Protocol.md §10.4); off by default, so an engine
        /// made for something else queues nothing its caller did not ask for.
        package var materialisesRecurring = false

        package init() {}
    }
}
