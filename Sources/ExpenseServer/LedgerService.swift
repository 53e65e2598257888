import ExpenseCore
import ExpenseProtocol
import Foundation

/// What the network front needs from one ledger. ``Ledger`` conforms; tests of the network layer use a double.
///
/// Every method may be called from any task; the implementation serialises them (an actor).
///
/// The network front uses the completion-handler forms of `hello`, `push`, `pull` and `summary`, which must
/// return at once: ``Ledger`` queues the work on its own thread (no `Task` per request, so a busy cooperative
/// pool never delays an answer); the defaults in `LedgerService+Bridges.swift` wrap the `async` forms in a `Task`, for doubles.
public protocol LedgerService: Sendable {
    /// The ledger's name.
    var name: String { get }
    /// The ledger's default currency.
    var currency: Currency { get }
    /// The ledger's id and history epoch (Protocol.md §5.7); `nil` leaves them out of `hello`.
    var identity: LedgerIdentity? { get }
    /// The head cursor and the highest mutationId consumed for `clientId` (0 when new).
    func hello(clientId: UUID) async throws -> (cursor: Int64, lastMutationId: Int64)
    /// Applies a push; returns only once its effects are durable.
    func push(clientId: UUID, items: [PushItem]) async throws -> PushResult
    /// Changes after `params.since`.
    func pull(_ params: PullRequest) async throws -> PullResult
    /// Totals computed from the ledger's own records.
    func summary(_ query: SummaryQuery) async throws -> SummaryResult
    /// Starts a `hello` and calls `completion` with the head and the client's last consumed mutationId; returns
    /// at once.
    func hello(clientId: UUID, completion: @escaping @Sendable (Result<(cursor: Int64, lastMutationId: Int64), any Error>) -> Void)
    /// Starts a push and calls `completion` once it is durable (or failed); returns at once.
    func push(clientId: UUID, items: [PushItem], completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void)
    /// The same push made by the session holding `credential` (its token's name is the changes' author); a
    /// ledger refuses it (−32001) when the token is revoked before the push is applied.
    func push(clientId: UUID, items: [PushItem], credential: TokenCredential?,
              completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void)
    /// Starts a pull and calls `completion` with its result; returns at once.
    func pull(_ params: PullRequest, completion: @escaping @Sendable (Result<PullResult, any Error>) -> Void)
    /// ``pull(_:completion:)`` with the page as the bytes to send (``EncodedPullPage``); returns at once.
    func pullPage(_ params: PullRequest, completion: @escaping @Sendable (Result<EncodedPullPage, any Error>) -> Void)
    /// Starts a summary and calls `completion` with its result; returns at once.
    func summary(_ query: SummaryQuery, completion: @escaping @Sendable (Result<SummaryResult, any Error>) -> Void)
    /// Starts `stats` and calls `completion` with its result; returns at once (Protocol.md §5.10).
    func statistics(_ query: StatisticsQuery, completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void)
    /// Starts a `history` read and calls `completion` with its page; returns at once (`LedgerService+History.swift`).
    func history(_ request: HistoryRequest, completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void)
    /// The ledger's head cursor.
    func head() async -> Int64
    /// Calls `onAdvance` with the new head each time the head moves; returns an id for ``unwatch(_:)``.
    func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void) async -> Int
    /// Stops calling a watcher.
    func unwatch(_ id: Int) async
    /// ``watch(_:)`` that calls `completion` with the watcher's id and the head at that moment; returns at once.
    func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void,
               completion: @escaping @Sendable (_ id: Int, _ head: Int64) -> Void)
    /// ``unwatch(_:)`` that returns at once.
    func unwatch(_ id: Int, completion: @escaping @Sendable () -> Void)
    /// The head when it can be read without waiting (an atomic), so `ping` is answered on the loop thread;
    /// `nil` sends `ping` through ``head()``.
    var headSnapshot: Int64? { get }
}

extension Ledger: LedgerService {}
