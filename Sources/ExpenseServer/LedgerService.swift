import ExpenseCore
import ExpenseProtocol
import Foundation

/// What the network front needs from one ledger. ``Ledger`` conforms; tests of the network layer use a double.
///
/// Every method may be called from any task; the implementation serialises them (an actor).
///
/// The network front uses the completion-handler forms of `hello`, `push`, `pull` and `summary`, which must
/// return at once: ``Ledger`` queues the work on its own thread (no `Task` per request, so a busy cooperative
/// pool never delays an answer); the defaults below wrap the `async` forms in a `Task`, for doubles.
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
    func pull(_ params: PullParams) async throws -> PullResult
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
    func pull(_ params: PullParams, completion: @escaping @Sendable (Result<PullResult, any Error>) -> Void)
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

extension LedgerService {
    public var headSnapshot: Int64? { nil }

    public func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void,
                      completion: @escaping @Sendable (_ id: Int, _ head: Int64) -> Void) {
        Task {
            let id = await watch(onAdvance)
            completion(id, await head())
        }
    }

    public func unwatch(_ id: Int, completion: @escaping @Sendable () -> Void) {
        Task {
            await unwatch(id)
            completion()
        }
    }
    public var identity: LedgerIdentity? { nil }

    public func hello(clientId: UUID,
                      completion: @escaping @Sendable (Result<(cursor: Int64, lastMutationId: Int64), any Error>) -> Void) {
        Task { completion(await Result(catching: { try await hello(clientId: clientId) })) }
    }

    public func push(clientId: UUID, items: [PushItem],
                     completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void) {
        Task { completion(await Result(catching: { try await push(clientId: clientId, items: items) })) }
    }

    /// Doubles ignore the credential.
    public func push(clientId: UUID, items: [PushItem], credential: TokenCredential?,
                     completion: @escaping @Sendable (Result<PushResult, any Error>) -> Void) {
        push(clientId: clientId, items: items, completion: completion)
    }

    public func pull(_ params: PullParams, completion: @escaping @Sendable (Result<PullResult, any Error>) -> Void) {
        Task { completion(await Result(catching: { try await pull(params) })) }
    }

    public func summary(_ query: SummaryQuery,
                        completion: @escaping @Sendable (Result<SummaryResult, any Error>) -> Void) {
        Task { completion(await Result(catching: { try await summary(query) })) }
    }
}

extension LedgerService {
    /// Doubles that do not compute statistics answer −32601.
    public func statistics(_ query: StatisticsQuery,
                           completion: @escaping @Sendable (Result<StatsResult, any Error>) -> Void) {
        completion(.failure(RPCError.methodNotFound(StatsRequest.method)))
    }
}

extension Result where Failure == any Error {
    /// The value or the error of an `async` throwing call.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A `hello`'s proof: the ledger and the credential of the token that opened it.
public struct Authentication: Sendable {
    public var ledger: any LedgerService
    public var credential: TokenCredential

    public init(ledger: any LedgerService, credential: TokenCredential) {
        self.ledger = ledger
        self.credential = credential
    }
}

/// Finds the ledger a `hello` names, checking its token.
public protocol LedgerProvider: Sendable {
    /// Calls `completion` (on any thread) with the ledger named `name` and the credential of `token` when
    /// `token` is one of that ledger's tokens (its SHA-256 compared in constant time), else with `nil`.
    /// It is called on the network loop's thread, so it must return at once: work that may block (the first
    /// `hello` naming a ledger created after the daemon started opens that ledger) runs elsewhere.
    func authenticate(ledger name: String, token: String, completion: @escaping @Sendable (Authentication?) -> Void)
}

/// An error that has its own JSON-RPC form (code, reason, message); others are answered −32603 `internal`.
public protocol RPCErrorConvertible: Error {
    /// The error to send to the client. Never contains a token.
    var rpcError: RPCError { get }
}

extension Ledger: LedgerService {}

extension LedgerDirectory: LedgerProvider {}

extension LedgerError: RPCErrorConvertible {
    public var rpcError: RPCError {
        if case .invalidCursor = self { return RPCError(code: code, message: message, reason: reason, field: "since") }
        return RPCError(code: code, message: message, reason: reason)
    }
}
