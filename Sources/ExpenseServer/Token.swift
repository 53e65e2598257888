import COpenSSL

/// Ledger access tokens: 256 bits from the system's CSPRNG, written as 64 lower-case hex digits. A store keeps
/// only each token's SHA-256 (``digest(_:)``), never the token, and compares digests in constant time.
enum Token {
    /// Bytes of randomness in a token (256 bits, well above the 128 required).
    static let byteCount = 32
    /// Bytes of a SHA-256 digest.
    static let digestLength = 32

    /// A new token from `SystemRandomNumberGenerator` (`getrandom(2)` on Linux).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Lower-case hex of `bytes` (a token's text, a digest as PostgreSQL's `decode(…, 'hex')` reads it).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The SHA-256 of the token's UTF-8 bytes, through OpenSSL's `EVP_Digest`: what a store keeps.
    ///
    /// A token is 256 random bits, so a plain (unsalted, fast) hash is enough: nothing can be guessed from it,
    /// and whoever reads a ledger file or a backup learns no token that would open the ledger.
    static func digest(_ token: String) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(token.utf8)
        let succeeded = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest with SHA-256 fails only when OpenSSL cannot allocate a context: nothing sensible goes on.
        precondition(succeeded == 1 && length == UInt32(digestLength), "OpenSSL's SHA-256 failed")
        return Array(output.prefix(digestLength))
    }

    /// Whether `token`'s SHA-256 is `digest`, compared in constant time.
    static func matches(_ token: String, digest stored: [UInt8]) -> Bool { sameDigest(digest(token), stored) }

    /// Whether two digests are equal, by OpenSSL's `CRYPTO_memcmp`: the time taken depends only on the length,
    /// never on where the bytes first differ. Digests of another length never match.
    static func sameDigest(_ given: [UInt8], _ stored: [UInt8]) -> Bool {
        guard given.count == digestLength, stored.count == digestLength else { return false }
        return given.withUnsafeBytes { a in
            stored.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, digestLength) == 0 }
        }
    }
}
