import Synchronization

/// A daemon's certificate and key, loaded from PEM files and reloadable while serving.
///
/// ``reload()`` reads the same files again (a certificate renewed by an ACME tool) and swaps the context in one
/// step: connections already open keep the session they have (each holds its own reference to the old context),
/// new connections get the new one. A reload that fails leaves the old context in place.
public final class TLSServerIdentity: Sendable {
    /// The PEM certificate chain file.
    public let certificateFile: String
    /// The PEM private key file (mode 0600 or stricter).
    public let keyFile: String
    private let current: Mutex<TLSContext>
    private let currentFingerprint: Mutex<CertificateFingerprint?>

    /// Loads `certificateFile` and `keyFile`.
    /// - Throws: ``TLSError`` (unreadable, a key readable by group or others, a key of another certificate).
    public init(certificateFile: String, keyFile: String) throws(TLSError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        current = Mutex(try TLSContext.server(certificateFile: certificateFile, keyFile: keyFile))
        currentFingerprint = Mutex(try? CertificateFactory.fingerprint(ofPEMFile: certificateFile))
    }

    /// The fingerprint of the certificate now served (for the log).
    public var fingerprint: CertificateFingerprint? { currentFingerprint.withLock { $0 } }

    /// Reads the files again; new connections use the new certificate and key.
    /// - Throws: ``TLSError``; the identity then keeps serving the previous certificate.
    public func reload() throws(TLSError) {
        let context = try TLSContext.server(certificateFile: certificateFile, keyFile: keyFile)
        let fingerprint = try? CertificateFactory.fingerprint(ofPEMFile: certificateFile)
        current.withLock { $0 = context }
        currentFingerprint.withLock { $0 = fingerprint }
    }

    /// A server session on the current context.
    func makeSession() throws(TLSError) -> TLSSession {
        let context = current.withLock { $0 }
        return try TLSSession(context: context)
    }
}
