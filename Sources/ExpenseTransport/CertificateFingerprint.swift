/// The SHA-256 of a certificate's DER bytes, written `sha256:` and 64 lowercase hex digits.
///
/// What `expensed tls init` prints and `expense remote set --pin` takes; like ssh's host key fingerprints,
/// it names one certificate whatever signed it.
public struct CertificateFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// A fingerprint from its 32 digest bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses `sha256:HEX` (upper or lower case, colons between bytes allowed, as `openssl x509 -fingerprint` prints).
    public init?(parsing text: String) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("sha256:") else { return nil }
        let hex = lowered.dropFirst("sha256:".count).filter { $0 != ":" }
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.bytes = bytes
    }

    public var description: String {
        "sha256:" + bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
