import ExpenseCore
import Foundation

/// Where to sync: the daemon's `HOST:PORT` (or several addresses of the same ledger, `HOST1:PORT1,HOST2:PORT2`,
/// see ``RemoteAddressList``), the ledger, and its token.
///
/// Stored by `expense remote set` in the store's settings (server, ledger) and in `$EXPENSE_HOME/token`
/// (mode 0600); `EXPENSE_SERVER`, `EXPENSE_LEDGER` and `EXPENSE_TOKEN` override each part and are enough on
/// their own. The token is never printed.
package struct RemoteConfiguration: Hashable, Sendable {
    /// The address list as written (`HOST:PORT`, `tls://HOST1:PORT1,HOST2:PORT2`).
    package var server: String
    package var ledger: String
    package var token: String
    /// TLS settings (`tls://` servers), see ``RemoteTLS``.
    package var tls: RemoteTLS
    /// Where `--trust-first` records the first fingerprint seen (`$EXPENSE_HOME/remote-tls`); `nil`: nowhere.
    package var tlsSettingsPath: String?
    /// The address of the list that worked last (``RemoteAddress/description``, stored by each sync): tried first.
    package var preferredAddress: String?
    /// The ledger id the cache is bound to (``StoreMetaKey/syncedLedgerId``), when it is: a connection of
    /// ``SyncConnection/init(remote:clientId:clientName:timeout:connectTimeout:kinds:)`` to an address reporting
    /// another id is refused (`other_ledger`) and the next address tried.
    package var boundLedgerId: UUID?

    package init(server: String, ledger: String, token: String, tls: RemoteTLS = RemoteTLS(), tlsSettingsPath: String? = nil) {
        self.server = server
        self.ledger = ledger
        self.token = token
        self.tls = tls
        self.tlsSettingsPath = tlsSettingsPath
    }

    /// `server/ledger`: what the pulled state belongs to.
    package var key: String { "\(server)/\(ledger)" }

    /// `address/ledger`: the ``key`` of one address of the list (for one address, ``key`` itself).
    package func key(at address: RemoteAddress) -> String { "\(address)/\(ledger)" }

    /// The addresses of ``server``.
    /// - Throws: ``SyncError/notConfigured(_:)`` when the list is not valid (``RemoteAddressError``).
    package func addressList() throws(SyncError) -> RemoteAddressList {
        do { return try RemoteAddressList(parsing: server) } catch {
            throw .notConfigured("the server address '\(server)' is not HOST:PORT, tls://HOST:PORT or a list "
                                 + "HOST1:PORT1,HOST2:PORT2: \(error)")
        }
    }

    /// The addresses in the order to try them: ``preferredAddress`` first, the others shuffled.
    /// - Throws: ``SyncError/notConfigured(_:)`` when the list is not valid.
    package func rotation(shuffle: ([RemoteAddress]) -> [RemoteAddress] = { $0.shuffled() }) throws(SyncError) -> AddressRotation {
        try addressList().order(preferred: preferredAddress, shuffle: shuffle)
    }

    /// The file holding the token in `home`.
    package static func tokenPath(in home: ExpenseHome) -> String {
        (home.path as NSString).appendingPathComponent("token")
    }

    /// The configuration from the environment over what is stored; `nil` when a part is missing.
    package static func resolve(environment: [String: String], home: ExpenseHome, store: (any ExpenseStore)?) throws -> RemoteConfiguration? {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let server = try env("EXPENSE_SERVER") ?? store?.metaValue(.server),
              let ledger = try env("EXPENSE_LEDGER") ?? store?.metaValue(.ledger),
              let token = env("EXPENSE_TOKEN") ?? readToken(home: home)
        else { return nil }
        var remote = RemoteConfiguration(server: server, ledger: ledger, token: token,
                                         tls: RemoteTLS.load(home: home, environment: environment),
                                         tlsSettingsPath: RemoteTLS.path(in: home))
        remote.preferredAddress = try store?.metaValue(.lastServer)
        remote.boundLedgerId = try store?.metaValue(.syncedLedgerId).flatMap(UUIDText.parse)
        return remote
    }

    /// The stored token, without its trailing line end.
    static func readToken(home: ExpenseHome) -> String? {
        guard let data = FileManager.default.contents(atPath: tokenPath(in: home)) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingWhitespace
        return token.isEmpty ? nil : token
    }

    /// Stores server and ledger in the store and the token in `$EXPENSE_HOME/token`, mode 0600, atomically.
    package func save(home: ExpenseHome, store: any ExpenseStore) throws {
        try FileSystem.writeAtomically(Data((token + "\n").utf8), to: Self.tokenPath(in: home))
        try store.write { transaction in
            try transaction.setMetaValue(server, for: .server)
            try transaction.setMetaValue(ledger, for: .ledger)
        }
    }
}
