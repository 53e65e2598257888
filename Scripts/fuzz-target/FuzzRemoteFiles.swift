// libFuzzer target `remote-files`: what `expense` reads besides its cache to reach the daemon, fed the input as
// each of them in turn:
// - `$EXPENSE_HOME/remote-tls` (RemoteTLS.load: `ca`, `pin sha256:HEX`, `trust-first`, `insecure-plaintext`
//   lines; CertificateFingerprint(parsing:)), with and without EXPENSE_TLS_CA / EXPENSE_TLS_PIN over it;
// - `$EXPENSE_HOME/token` (RemoteConfiguration.readToken);
// - the address list as `expense remote set` stores it or EXPENSE_SERVER gives it (RemoteAddressList(parsing:),
//   SocketAddress(parsing:)), and RemoteConfiguration.resolve over all three.
//
// Checked on every input, besides never crashing:
// - the settings read are written by their own writer (RemoteTLS.save) into a file that reads back as the same
//   settings, and that file written again is the same bytes; the environment's CA and pin win over the file;
//   the transport settings for a tls:// and a loopback plaintext server answer;
// - a token read is written by RemoteConfiguration.save (token file and store) and read back the same;
// - an address list that parses, written back as its addresses' descriptions joined by commas, parses to the
//   same addresses; each address's description alone parses to that address; the rotation preferring any one
//   address starts with it and holds every address once;
// - resolve returns exactly what the three readers give.
// The files are written in a directory of $FUZZ_SCRATCH (Scripts/fuzz makes it in /dev/shm and removes it after
// the run), else of the temporary directory.
// Built by Scripts/fuzz together with ExpenseCore, ExpenseProtocol, ExpenseClient, ExpenseTransport, SystemKit and
// SQLite (CEpoll.c compiled beside them; the system's libsqlite3, libssl and libcrypto linked) and
// FuzzFailure.swift as one module: RemoteTLS and RemoteConfiguration name ExpenseHome, the stores and the
// transport's TLS settings, which name the rest.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's $EXPENSE_HOME (one per process: with --jobs, several workers share $FUZZ_SCRATCH).
private let homePath: String = {
    let base = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? NSTemporaryDirectory()
    let path = (base as NSString).appendingPathComponent("home-\(getpid())")
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

private let pin = "sha256:" + String(repeating: "ab", count: 32)

/// Puts `bytes` at `path`; an empty file is removed instead. Both readers treat a missing file as an empty one
/// (no lines; no token), and swift-foundation's FileManager.contents(atPath:) leaks 4 KiB on every read of an
/// empty file (the zero-size path of Data+Reading.swift), which ran this target out of memory in 45 s.
private func place(_ bytes: Data, at path: String) {
    if bytes.isEmpty {
        unlink(path)
        return
    }
    do { try bytes.write(to: URL(fileURLWithPath: path)) } catch { fuzzFailure("cannot write \(path): \(error)", input: bytes) }
}

/// Removes the file at `path` when a writer left it empty (see ``place(_:at:)``).
private func removeIfEmpty(_ path: String) {
    var status = stat()
    if stat(path, &status) == 0, status.st_size == 0 { unlink(path) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let home = ExpenseHome(path: homePath, backend: .json)
    let settings = checkTLSSettings(bytes, home: home)
    let token = checkToken(bytes, home: home)
    let text = String(decoding: bytes, as: UTF8.self)
    checkAddressList(text, input: bytes)
    checkResolve(server: text, settings: settings, token: token, home: home, input: bytes)
    return 0
}

/// `remote-tls` holding the input.
private func checkTLSSettings(_ bytes: Data, home: ExpenseHome) -> RemoteTLS {
    let path = RemoteTLS.path(in: home)
    place(bytes, at: path)
    let settings = RemoteTLS.load(home: home, environment: [:])
    do { try settings.save(home: home) } catch { fuzzFailure("cannot save the settings read: \(error)", input: bytes) }
    removeIfEmpty(path)
    let written = FileManager.default.contents(atPath: path) ?? Data()
    let reread = RemoteTLS.load(home: home, environment: [:])
    fuzzCheck(reread == settings, "remote-tls written back reads as \(reread), not \(settings)\nwritten: "
              + String(decoding: written, as: UTF8.self).debugDescription, input: bytes)
    do { try reread.save(home: home) } catch { fuzzFailure("cannot save the settings read back: \(error)", input: bytes) }
    removeIfEmpty(path)
    fuzzCheck((FileManager.default.contents(atPath: path) ?? Data()) == written, "remote-tls written twice differs", input: bytes)

    let environment = ["EXPENSE_TLS_CA": "/etc/ssl/ca.pem", "EXPENSE_TLS_PIN": pin]
    let overridden = RemoteTLS.load(home: home, environment: environment)
    fuzzCheck(overridden.caFile == "/etc/ssl/ca.pem" && overridden.pin?.description == pin
              && overridden.trustFirst == settings.trustFirst && overridden.insecurePlaintext == settings.insecurePlaintext,
              "the environment does not win over remote-tls: \(overridden)", input: bytes)
    // The pin as a value of `--pin` or EXPENSE_TLS_PIN: what parses is written as text that parses the same.
    if let fingerprint = RemoteTLS.fingerprint(parsing: String(decoding: bytes, as: UTF8.self)) {
        fuzzCheck(RemoteTLS.fingerprint(parsing: fingerprint.description) == fingerprint,
                  "\(fingerprint) does not parse back to itself", input: bytes)
    }
    let tls = try? settings.transport(for: "tls://127.0.0.1:1", address: SocketAddress(host: "127.0.0.1", port: 1))
    fuzzCheck(tls != nil, "no TLS settings for a tls:// server", input: bytes)
    fuzzCheck((try? settings.transport(for: "127.0.0.1:1", address: SocketAddress(host: "127.0.0.1", port: 1))) == .some(nil),
              "plaintext to loopback is refused or given TLS", input: bytes)
    return settings
}

/// `token` holding the input.
private func checkToken(_ bytes: Data, home: ExpenseHome) -> String? {
    let path = RemoteConfiguration.tokenPath(in: home)
    place(bytes, at: path)
    guard let token = RemoteConfiguration.readToken(home: home) else { return nil }
    let store = InMemoryExpenseStore()
    do {
        try RemoteConfiguration(server: "127.0.0.1:7468", ledger: "default", token: token).save(home: home, store: store)
    } catch {
        fuzzFailure("cannot save the token read: \(error)", input: bytes)
    }
    let reread = RemoteConfiguration.readToken(home: home)
    fuzzCheck(reread == token, "the token written back reads as \(String(describing: reread).debugDescription), not "
              + token.debugDescription, input: bytes)
    // Leave the file as the input had it for checkResolve.
    place(bytes, at: path)
    return token
}

/// The input as the server's address list.
private func checkAddressList(_ text: String, input: Data) {
    if let address = try? SocketAddress(parsing: text) {
        fuzzCheck((try? SocketAddress(parsing: address.description)) == address,
                  "the address \(address) does not parse back to itself", input: input)
    }
    guard let list = try? RemoteAddressList(parsing: text) else { return }
    fuzzCheck(!list.addresses.isEmpty && list.addresses.count <= RemoteAddressList.maximumCount,
              "a list of \(list.addresses.count) addresses", input: input)
    let written = list.addresses.map(\.description).joined(separator: ",")
    do {
        let reread = try RemoteAddressList(parsing: written)
        fuzzCheck(reread == list, "the list written back as \(written.debugDescription) parses to other addresses: "
                  + "\(reread.addresses) vs \(list.addresses)", input: input)
    } catch {
        fuzzFailure("the list written back as \(written.debugDescription) is refused: \(error)", input: input)
    }
    for address in list.addresses {
        let alone = try? RemoteAddressList(parsing: address.description)
        fuzzCheck(alone?.addresses == [address], "the address \(address.description.debugDescription) alone parses to "
                  + "\(String(describing: alone?.addresses))", input: input)
        let rotation = list.order(preferred: address.description, shuffle: { $0.reversed() })
        fuzzCheck(rotation.current == address && rotation.pass.count == list.addresses.count
                  && Set(rotation.pass) == Set(list.addresses),
                  "the rotation preferring \(address) is \(rotation.order)", input: input)
    }
}

/// RemoteConfiguration.resolve over the three files: the store holds the input as the server.
private func checkResolve(server: String, settings: RemoteTLS, token: String?, home: ExpenseHome, input: Data) {
    let store = InMemoryExpenseStore()
    do {
        try store.write { transaction in
            try transaction.setMetaValue(server, for: .server)
            try transaction.setMetaValue("default", for: .ledger)
        }
    } catch {
        fuzzFailure("cannot store the server: \(error)", input: input)
    }
    let remote: RemoteConfiguration?
    do { remote = try RemoteConfiguration.resolve(environment: [:], home: home, store: store) } catch {
        fuzzFailure("resolve threw \(error)", input: input)
    }
    guard let token else {
        fuzzCheck(remote == nil, "resolved without a token", input: input)
        return
    }
    guard let remote else { fuzzFailure("not resolved with a server, a ledger and a token", input: input) }
    fuzzCheck(remote.server == server && remote.token == token && remote.tls == settings && remote.ledger == "default",
              "resolve gave \(remote)", input: input)
    if let rotation = try? remote.rotation() {
        fuzzCheck(rotation.pass.count == (try? remote.addressList())?.addresses.count, "a rotation of \(rotation.order)",
                  input: input)
    }
}
