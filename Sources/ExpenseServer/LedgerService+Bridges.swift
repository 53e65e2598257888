import ExpenseCore
import ExpenseProtocol
import Foundation

// The default completion forms of `LedgerService` for doubles that implement only the `async` ones: each wraps
// its call in a `Task` (``Ledger`` implements every form on its own thread instead).

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

    public func pull(_ params: PullRequest, completion: @escaping @Sendable (Result<PullResult, any Error>) -> Void) {
        Task { completion(await Result(catching: { try await pull(params) })) }
    }

    /// The page of ``pull(_:completion:)``, written record by record.
    public func pullPage(_ params: PullRequest, completion: @escaping @Sendable (Result<EncodedPullPage, any Error>) -> Void) {
        pull(params) { completion($0.map(EncodedPullPage.init)) }
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
