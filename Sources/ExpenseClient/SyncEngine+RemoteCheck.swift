import ExpenseCore
import ExpenseProtocol
import Foundation

extension SyncEngine {
    /// What `expense remote set` learned about the remote this engine points at.
    package enum RemoteCheck: Sendable, Equatable {
        /// The cache has never synced: any remote is fine.
        case unbound
        /// The remote serves the ledger this cache holds (the same address, or the same `ledgerId`).
        case sameLedger
        /// The remote could not be asked (unreachable, or it refused the token); the next sync checks it before
        /// changing anything.
        case unverified(String)
    }

    /// Checks, before a new remote is stored, that it serves the ledger this cache is bound to (Protocol.md §5.7):
    /// one `hello` to each address of the list other than the one last synced with. Nothing local changes.
    /// - Throws: ``SyncError/otherLedger(synced:asked:)`` when an address serves another ledger, or when the cache
    ///   is bound by address only (synced before ledger ids) and the address differs;
    ///   ``SyncError/notConfigured(_:)`` for an invalid list.
    package func checkRemote() throws -> RemoteCheck {
        let store = ledger.store
        let boundId = try store.metaValue(.syncedLedgerId).flatMap(UUIDText.parse)
        let synced = try store.metaValue(.syncedLedger)
        guard boundId != nil || synced != nil else { return .unbound }
        let addresses = try remote.addressList().addresses.filter { remote.key(at: $0) != synced }
        if addresses.isEmpty { return .sameLedger }
        guard let boundId else { throw SyncError.otherLedger(synced: synced ?? "?", asked: remote.key) }
        guard let clientId = try store.clientId() else { throw SyncError.protocolError("the local store has no client id") }
        var unverified: [String] = []
        for address in addresses {
            let connection: SyncConnection
            do {
                connection = try SyncConnection(remote: remote, address: address, clientId: clientId,
                                                clientName: configuration.clientName, timeout: .seconds(10),
                                                connectTimeout: configuration.connectTimeout)
            } catch {
                switch error {
                case .unreachable(let reason), .unanswered(let reason), .unauthorized(let reason):
                    unverified.append(reason)
                    continue
                default: throw error
                }
            }
            let hello = connection.hello
            connection.close()
            let key = remote.key(at: address)
            guard let reported = hello.identity?.ledgerId, reported == boundId else {
                throw SyncError.otherLedger(synced: LedgerBinding.describe(synced, boundId),
                                            asked: hello.identity.map { LedgerBinding.describe(key, $0.ledgerId) } ?? key)
            }
        }
        return unverified.isEmpty ? .sameLedger : .unverified(unverified.joined(separator: "; "))
    }
}
