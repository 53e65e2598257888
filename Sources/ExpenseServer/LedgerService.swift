import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// What the network front needs from one ledger. ``Ledger`` conforms; tests of the network layer use a double.
///
/// Every method may be called from any thread and returns at once: the work is queued (``Ledger`` runs it on its
/// own thread, after what is queued already) and `completion` is called with its result, on whichever thread
/// did the work. There is no `async` form: the front runs on its loop thread, and a `Task` per request would
/// make every answer wait for a free thread of the cooperative pool. Tests that want to `await` a call wrap
/// these forms themselves.
public protocol LedgerService: Sendable {
    /// The ledger's name.
    var name: String { get }
    /// The ledger's default currency.
    var currency: Currency { get }
    /// The ledger's id and history epoch (Protocol.md §5.7); `nil` leaves them out of `hello`.
    var identity: LedgerIdentity? { get }
    /// The head cursor as of the latest commit.
    ///
    /// The one read of the head, and synchronous: it must not wait (an atomic in ``Ledger``), because `ping` and
    /// a repeated `watch` are answered from it on the loop thread. A completion form would send every `ping`
    /// through the ledger's thread and the mailbox for a number that is already at hand. It is stored after a
    /// commit and before that commit's pushes are answered, so a client that saw its push acknowledged never
    /// reads an older head.
    var head: Int64 { get }
    /// Starts a `hello` and calls `completion` with the head and the client's last consumed mutationId (0 when
    /// new).
    func hello(clientId: UUID, completion: @escaping @Sendable (Result<(cursor: Int64, lastMutationId: Int64), any Error>) -> Void)
    /// Starts a push made by the session holding `credential` and calls `completion` once its effects are
    /// durable (or it failed).
    ///
    /// `credential`'s token name is the changes' author; a ledger refuses the push (−32001) when the token is
    /// revoked before the push is applied. `nil`: a caller inside the daemon or a test, no author and no check.
    func push(clientId: UUID, items: [PushItem], credential: TokenCredential?,
              completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void)
    /// Starts a pull of the changes after `params.since` and calls `completion` with the page as the bytes the
    /// front answers `pull` with (``EncodedPullPage``).
    func pull(_ params: PullRequest, completion: @escaping @Sendable (Result<EncodedPullPage, any Error>) -> Void)
    /// Starts a summary (totals computed from the ledger's own records, converted when the request asks) and
    /// calls `completion` with it.
    func summary(_ request: SummaryRequest, completion: @escaping @Sendable (Result<SummaryResult, any Error>) -> Void)
    /// Starts `stats` and calls `completion` with its result (Protocol.md §5.10), converted into one currency
    /// when `conversion` is given.
    func statistics(_ query: StatisticsQuery, conversion: ViewConversion?,
                    completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void)
    /// Starts a `history` read and calls `completion` with its page (`Ledger+History.swift`).
    func history(_ request: HistoryRequest, completion: @escaping @Sendable (Result<HistoryResult, any Error>) -> Void)
    /// Starts `balances` (per member and currency, computed from the ledger's own records: Protocol.md §5.11) and
    /// calls `completion` with them, only `currency`'s records when it is given (`Ledger+Balances.swift`); with a
    /// `conversion`, all in one currency, `at: end` valuing amounts on `today`.
    func balances(currency: Currency?, conversion: ViewConversion?, today: CalendarDay,
                  completion: @escaping @Sendable (Result<BalancesResult, any Error>) -> Void)
    /// Registers `onAdvance`, called with the new head each time the head moves, and calls `completion` with the
    /// watcher's id (for ``unwatch(_:completion:)``) and the head at that moment.
    func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void,
               completion: @escaping @Sendable (_ id: Int, _ head: Int64) -> Void)
    /// Stops calling a watcher, then calls `completion`.
    func unwatch(_ id: Int, completion: @escaping @Sendable () -> Void)
}

extension Ledger: LedgerService {}
