/// Ledger access tokens: 256 bits from the system's CSPRNG, written as 64 lower-case hex digits.
enum Token {
    /// Bytes of randomness in a token (256 bits, well above the 128 required).
    static let byteCount = 32

    /// A new token from `SystemRandomNumberGenerator` (`getrandom(2)` on Linux).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(byteCount * 2)
        for _ in 0..<byteCount {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Compares `given` with `expected` in time that depends only on `expected`'s length, never on where they
    /// first differ, so response times reveal nothing about the token.
    static func matches(_ given: String, expected: [UInt8]) -> Bool {
        var difference: UInt8 = 0
        var givenBytes = Array(given.utf8)
        difference |= givenBytes.count == expected.count ? 0 : 1
        if givenBytes.count < expected.count {
            givenBytes += Array(repeating: 0, count: expected.count - givenBytes.count)
        }
        for index in 0..<expected.count {
            difference |= givenBytes[index] ^ expected[index]
        }
        return difference == 0
    }
}
