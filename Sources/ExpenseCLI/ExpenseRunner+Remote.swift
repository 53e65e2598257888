import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense remote set` and `remote show`: the daemon, ledger and token this cache syncs with.
extension ExpenseRunner {
    /// `expense remote set HOST:PORT[,HOST:PORT…] --ledger NAME (--token-file FILE | --token TOKEN)`.
    func remoteSet() throws {
        let server = command[ExpenseArguments.server] ?? ""
        do { _ = try RemoteAddressList(parsing: server) } catch {
            throw usage("The server must be tls://HOST:PORT or HOST:PORT, such as tls://expense.example:7468, or several "
                        + "addresses of the same ledger, HOST1:PORT1,HOST2:PORT2, not '\(server)' (\(error))")
        }
        var tls = RemoteTLS(caFile: command[ExpenseOptions.certificateAuthority], trustFirst: command[ExpenseOptions.trustFirst],
                            insecurePlaintext: command[ExpenseOptions.insecurePlaintext])
        if let pin = command[ExpenseOptions.pin] {
            guard let fingerprint = RemoteTLS.fingerprint(parsing: pin) else {
                throw usage("--pin takes sha256:HEX (64 hex digits, as `expensed tls init` prints), not '\(pin)'")
            }
            tls.pin = fingerprint
        }
        if !RemoteTLS.split(server).tls, tls.caFile != nil || tls.pin != nil || tls.trustFirst {
            throw usage("--ca, --pin and --trust-first need a tls://HOST:PORT server")
        }
        guard let ledgerName = command[ExpenseOptions.ledger], !ledgerName.isEmpty else { throw usage("--ledger NAME is required") }
        let token: String
        switch (command[ExpenseOptions.tokenFile], command[ExpenseOptions.token]) {
        case (let file?, nil):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure(.ioError, "Error: cannot read the token file \(file)")
            }
            token = String(decoding: data, as: UTF8.self).trimmingWhitespace
        case (nil, let given?):
            token = given
        default:
            throw usage("Give exactly one of --token-file FILE and --token TOKEN")
        }
        guard !token.isEmpty else { throw usage("The token is empty") }
        let store = try ledger().store
        let configuration = RemoteConfiguration(server: server, ledger: ledgerName, token: token, tls: tls,
                                                tlsSettingsPath: RemoteTLS.path(in: home))
        try tls.save(home: home)
        // A cache holds one ledger: pointing it at another would mix the two ledgers' records. Any address that
        // serves the same ledger id is fine (Protocol.md §5.7).
        var engine = SyncEngine(ledger: LocalLedger(store: store), remote: configuration)
        engine.configuration.attempts = 1
        engine.configuration.connectTimeout = connectTimeout
        if case .unverified(let reason) = try engine.checkRemote() {
            console.err("Warning: could not ask \(server) which ledger it serves (\(reason)); the next `expense sync` "
                        + "checks it before changing anything.")
        }
        try configuration.save(home: home, store: store)
        console.err("Remote set: \(server), ledger \(ledgerName) (token stored in \(RemoteConfiguration.tokenPath(in: home)), mode 0600).")
    }

    /// `expense remote show`.
    func remoteShow() throws {
        let store = try ledger(readOnly: true).store
        guard let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: store) else {
            throw CommandFailure(.failure, "Error: no_remote: no remote is set; run `expense remote set HOST:PORT --ledger NAME --token-file FILE`")
        }
        var text = "server \(remote.server)\nledger \(remote.ledger)\n"
        // Several addresses: one line each, the one the last sync reached marked.
        if let list = try? remote.addressList(), list.addresses.count > 1 {
            for address in list.addresses {
                text += "address \(address)" + (address.description == remote.preferredAddress ? " (last reached)" : "") + "\n"
            }
        }
        console.out(text)
    }

    /// The remote, or a clear error.
    func remote(_ ledger: LocalLedger) throws -> RemoteConfiguration {
        guard let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: ledger.store) else {
            throw SyncError.notConfigured("no remote is set; run `expense remote set HOST:PORT --ledger NAME --token-file FILE` "
                                          + "or set EXPENSE_SERVER, EXPENSE_LEDGER and EXPENSE_TOKEN")
        }
        return remote
    }
}
