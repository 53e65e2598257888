import ExpenseCore
import ExpenseProtocol
import Foundation

extension SyncEngine {
    /// Every history entry the daemon keeps for `id` (or the ledger's activity when `nil`) made at or after
    /// `sinceTime`, in `seq` order, read page by page (Protocol.md §5.8). Read-only: nothing local changes.
    /// - Throws: ``SyncError`` (`unreachable` after ``Configuration/attempts`` tries).
    package func history(id: UUID?, sinceTime: Int64? = nil, kinds: Set<RecordKind> = []) throws -> (entries: [HistoryEntry], horizon: Int64) {
        var entries: [HistoryEntry] = []
        var horizon: Int64 = 0
        try retrying { _ in
            entries = []
            guard let clientId = try ledger.store.clientId() else { throw SyncError.protocolError("the local store has no client id") }
            let connection = try SyncConnection(remote: remote, clientId: clientId, clientName: configuration.clientName,
                                                timeout: configuration.timeout, connectTimeout: configuration.connectTimeout)
            defer { connection.close() }
            var since: Int64 = 0
            while true {
                let page = try connection.call(HistoryRequest(id: id, since: since, sinceTime: sinceTime,
                                                              limit: HistoryRequest.limitRange.upperBound, kinds: kinds))
                entries += page.entries
                horizon = page.horizon
                guard page.more, page.cursor > since else { break }
                since = page.cursor
            }
        }
        return (entries, horizon)
    }
}
