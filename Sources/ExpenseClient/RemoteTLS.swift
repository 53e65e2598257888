import ExpenseTransport
import Foundation

/// How the client secures its connection to the daemon: `tls://HOST:PORT` with full verification (the system's CA
/// store or `--ca FILE`, and the host name), a pinned certificate (`--pin sha256:HEX`), or trust on first use
/// (`--trust-first`, which records the first fingerprint seen, like ssh's known_hosts); plain `HOST:PORT` is
/// plaintext, allowed only to a loopback address unless `--insecure-plaintext`. Never a silent fallback.
///
/// Stored by `expense remote set` in `$EXPENSE_HOME/remote-tls` (mode 0600, `key value` lines);
/// `EXPENSE_TLS_CA` and `EXPENSE_TLS_PIN` override the file.
package struct RemoteTLS: Hashable, Sendable {
    package var caFile: String?
    package var pin: CertificateFingerprint?
    package var trustFirst = false
    package var insecurePlaintext = false

    package init(caFile: String? = nil, pin: CertificateFingerprint? = nil, trustFirst: Bool = false, insecurePlaintext: Bool = false) {
        self.caFile = caFile
        self.pin = pin
        self.trustFirst = trustFirst
        self.insecurePlaintext = insecurePlaintext
    }

    /// Parses `sha256:HEX` (``CertificateFingerprint``), for the CLI.
    package static func fingerprint(parsing text: String) -> CertificateFingerprint? { CertificateFingerprint(parsing: text) }

    /// The scheme that asks for TLS.
    package static let scheme = "tls://"

    /// `tls://HOST:PORT` → (`HOST:PORT`, true); `HOST:PORT` → (itself, false).
    package static func split(_ server: String) -> (address: String, tls: Bool) {
        server.hasPrefix(scheme) ? (String(server.dropFirst(scheme.count)), true) : (server, false)
    }

    /// The file holding these settings in `home`.
    package static func path(in home: ExpenseHome) -> String {
        (home.path as NSString).appendingPathComponent("remote-tls")
    }

    /// The settings stored in `home` with the environment over them.
    package static func load(home: ExpenseHome, environment: [String: String]) -> RemoteTLS {
        var settings = RemoteTLS()
        if let data = FileManager.default.contents(atPath: path(in: home)) {
            for line in lines(of: data) {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                switch (parts.first, parts.count == 2 ? parts[1] : nil) {
                case ("ca", let value?): settings.caFile = value
                case ("pin", let value?): settings.pin = CertificateFingerprint(parsing: value)
                case ("trust-first", _): settings.trustFirst = true
                case ("insecure-plaintext", _): settings.insecurePlaintext = true
                default: break
                }
            }
        }
        if let ca = environment["EXPENSE_TLS_CA"], !ca.isEmpty { settings.caFile = ca }
        if let pin = environment["EXPENSE_TLS_PIN"].flatMap(CertificateFingerprint.init(parsing:)) { settings.pin = pin }
        return settings
    }

    /// The lines of a settings file, split at each line feed byte, the carriage returns ending a line dropped (a
    /// file saved with CRLF line ends reads as with LF). Not `String.split(separator: "\n")`: "\r\n" is one
    /// Character there, never split at, so a CRLF file was one line and its pin lost.
    private static func lines(of data: Data) -> [String] {
        data.split(separator: UInt8(ascii: "\n")).map { line in
            var line = line[...]
            while line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            return String(decoding: line, as: UTF8.self)
        }
    }

    /// Writes the settings to `home` (0600, atomically).
    package func save(home: ExpenseHome) throws { try save(path: Self.path(in: home)) }

    /// Writes the settings to `path` (0600, atomically).
    package func save(path: String) throws {
        var text = ""
        if let caFile { text += "ca \(caFile)\n" }
        if let pin { text += "pin \(pin)\n" }
        if trustFirst { text += "trust-first\n" }
        if insecurePlaintext { text += "insecure-plaintext\n" }
        try FileSystem.writeAtomically(Data(text.utf8), to: path)
    }

    /// The transport's TLS settings for `server`, `nil` for plaintext.
    /// - Throws: ``SyncError/notConfigured(_:)`` for plaintext to an address that is not loopback without
    ///   `--insecure-plaintext`.
    package func transport(for server: String, address: SocketAddress) throws(SyncError) -> TLSClientConfiguration? {
        guard Self.split(server).tls else {
            guard address.isLoopback || insecurePlaintext else {
                throw .notConfigured("refusing plaintext to \(server), which is not a loopback address: use tls://\(server), "
                                     + "or `expense remote set \(server) … --insecure-plaintext` on a trusted network")
            }
            return nil
        }
        if let pin { return TLSClientConfiguration(verification: .pin(pin)) }
        if trustFirst { return TLSClientConfiguration(verification: .recordFingerprint) }
        return TLSClientConfiguration(verification: .authority(caFile: caFile))
    }
}
