import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import Foundation

// `async` forms of `LedgerService`'s completion forms, for tests that await a ledger call. They are not part of
// the daemon: its front calls the completion forms from its loop thread and never awaits a ledger, so one form
// per method is all a ledger (or a double) implements.

extension LedgerService {
    /// The head and the highest mutationId consumed for `clientId` (``LedgerService/hello(clientId:completion:)``).
    public func hello(clientId: UUID) async throws -> (cursor: Int64, lastMutationId: Int64) {
        try await withCheckedThrowingContinuation { continuation in
            hello(clientId: clientId) { continuation.resume(with: $0) }
        }
    }

    /// A push made without a credential, returned once durable
    /// (``LedgerService/push(clientId:items:credential:completion:)``).
    public func push(clientId: UUID, items: [PushItem]) async throws -> PushResult {
        try await withCheckedThrowingContinuation { continuation in
            push(clientId: clientId, items: items, credential: nil) { continuation.resume(with: $0) }
        }
    }

    /// The changes after `params.since` as records: the page ``LedgerService/pull(_:completion:)`` answers, read
    /// back from the response line the front would send, as a client reads it.
    public func pull(_ params: PullRequest) async throws -> PullResult {
        let page: EncodedPullPage = try await withCheckedThrowingContinuation { continuation in
            pull(params) { continuation.resume(with: $0) }
        }
        return try page.decoded(maximumLineLength: params.maximumLineLength)
    }

    /// Totals from the ledger's own records (``LedgerService/summary(_:completion:)``).
    public func summary(_ query: SummaryQuery) async throws -> SummaryResult {
        try await withCheckedThrowingContinuation { continuation in
            summary(SummaryRequest(query: query)) { continuation.resume(with: $0) }
        }
    }

    /// Registers `onAdvance` and returns its id (``LedgerService/watch(_:completion:)``; the head it reports
    /// is dropped).
    public func watch(_ onAdvance: @escaping @Sendable (Int64) -> Void) async -> Int {
        await withCheckedContinuation { continuation in
            watch(onAdvance) { id, _ in continuation.resume(returning: id) }
        }
    }

    /// Stops calling a watcher (``LedgerService/unwatch(_:completion:)``).
    public func unwatch(_ id: Int) async {
        await withCheckedContinuation { continuation in
            unwatch(id) { continuation.resume() }
        }
    }
}

extension LedgerEngine {
    /// ``pullPage(_:)`` as records: the page read back from the response line the front would send, as a client
    /// reads it.
    package func pull(_ params: PullRequest) throws -> PullResult {
        try pullPage(params).decoded(maximumLineLength: params.maximumLineLength)
    }
}

extension EncodedPullPage {
    /// The page as a client reads it from its response line of at most `maximumLineLength` bytes.
    public func decoded(maximumLineLength: Int) throws -> PullResult {
        let line = try JSONParser.parse(responseLine(id: .number(JSONNumber(1)), maximumLineLength: maximumLineLength))
        return try PullResult(json: line["result"] ?? .null)
    }
}
