import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// Self-signed certificates made through the OpenSSL API (an EC P-256 key, SHA-256 signature, the hosts in
/// `subjectAltName`), and certificate fingerprints: what `expensed tls init` and the tests use.
package enum CertificateFactory {
    /// A certificate and its private key, both PEM.
    package struct Identity: Sendable {
        package var certificatePEM: String
        package var keyPEM: String
        package var fingerprint: CertificateFingerprint
    }

    /// The hosts `tls init` puts in a certificate when none are given.
    package static let defaultHosts = ["localhost", "127.0.0.1", "::1"]

    /// A new self-signed certificate for `hosts` (host names and IP addresses), valid from `notBefore` to
    /// `notAfter` seconds from now (a test passes negative numbers for an expired certificate).
    /// - Throws: ``TLSError/setupFailed(reason:)``.
    package static func selfSigned(hosts: [String], commonName: String? = nil,
                                   notBefore: Int = -300, notAfter: Int = 825 * 86_400) throws(TLSError) -> Identity {
        guard let key = makeKey() else { throw .setupFailed(reason: "cannot make an EC P-256 key: \(TLSContext.takeErrorText())") }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw .setupFailed(reason: "X509_new failed") }
        defer { X509_free(certificate) }
        var serial: UInt64 = 0
        withUnsafeMutableBytes(of: &serial) { _ = RAND_bytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), 8) }
        var ok = X509_set_version(certificate, 2) == 1
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial >> 1) == 1
            && X509_gmtime_adj(X509_getm_notBefore(certificate), notBefore) != nil
            && X509_gmtime_adj(X509_getm_notAfter(certificate), notAfter) != nil
            && X509_set_pubkey(certificate, key) == 1
        let name = X509_get_subject_name(certificate)
        let common = commonName ?? hosts.first ?? "expensed"
        ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, common, -1, -1, 0) == 1
            && X509_set_issuer_name(certificate, name) == 1
        let alternativeNames = hosts.map { TLSSession.isIPAddress(TLSSession.bareHost($0)) ? "IP:\(TLSSession.bareHost($0))" : "DNS:\($0)" }
        var extensions: [(Int32, String)] = [(NID_basic_constraints, "critical,CA:TRUE"),
                                             (NID_key_usage, "critical,digitalSignature,keyCertSign"),
                                             (NID_ext_key_usage, "serverAuth"),
                                             (NID_subject_key_identifier, "hash"),
                                             (NID_authority_key_identifier, "keyid:always")]
        if !alternativeNames.isEmpty { extensions.append((NID_subject_alt_name, alternativeNames.joined(separator: ","))) }
        for (nid, value) in extensions where ok {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else { ok = false; break }
            ok = X509_add_ext(certificate, made, -1) == 1
            X509_EXTENSION_free(made)
        }
        guard ok, X509_sign(certificate, key, EVP_sha256()) > 0 else {
            throw .setupFailed(reason: "cannot build the certificate: \(TLSContext.takeErrorText())")
        }
        guard let certificatePEM = pem({ PEM_write_bio_X509($0, certificate) }),
              let keyPEM = pem({ PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }),
              let fingerprint = fingerprint(of: certificate) else {
            throw .setupFailed(reason: "cannot write PEM: \(TLSContext.takeErrorText())")
        }
        return Identity(certificatePEM: certificatePEM, keyPEM: keyPEM, fingerprint: fingerprint)
    }

    /// The SHA-256 fingerprint of a certificate (`X509*`), over its DER bytes.
    package static func fingerprint(of certificate: OpaquePointer) -> CertificateFingerprint? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return nil }
        return CertificateFingerprint(bytes: Array(digest.prefix(Int(length))))
    }

    /// The fingerprint of the first certificate in a PEM file.
    /// - Throws: ``TLSError/unreadableFile(path:reason:)``.
    package static func fingerprint(ofPEMFile path: String) throws(TLSError) -> CertificateFingerprint {
        ERR_clear_error()
        guard let file = BIO_new_file(path, "r") else { throw .unreadableFile(path: path, reason: TLSContext.takeErrorText()) }
        defer { BIO_free(file) }
        guard let certificate = PEM_read_bio_X509(file, nil, nil, nil) else {
            throw .unreadableFile(path: path, reason: TLSContext.takeErrorText())
        }
        defer { X509_free(certificate) }
        guard let fingerprint = fingerprint(of: certificate) else { throw .setupFailed(reason: "X509_digest failed") }
        return fingerprint
    }

    private static func makeKey() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1 else { return nil }
        return key
    }

    /// What `write` puts into a memory BIO, as text.
    private static func pem(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        let count = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(count)) }
        guard read == count else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
