/// The one comparison of text in the project: two strings are the same value only when their UTF-8 bytes are.
///
/// Text is stored exactly as it was typed or sent (Protocol.md §2), so "café" in NFC (`caf` + U+00E9) and in NFD
/// (`cafe` + U+0301) are two different values, although Swift's `==` (canonical equivalence) calls them equal.
/// The daemon's rules, the aggregator, the client's merge and every store's filters compare with this, never with
/// `==` on `String`, so that a change of normalisation is a change like any other: sent, stored and shown.
public enum ExactText {
    /// Whether `a` and `b` have the same UTF-8 bytes.
    @inlinable
    public static func same(_ a: String, _ b: String) -> Bool {
        // Compared as two buffers when both strings have their bytes contiguous (every native string: no
        // iterator per byte, which cost a short text about 300 instructions); otherwise byte by byte.
        guard a.utf8.count == b.utf8.count else { return false }
        let contiguous = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in a.elementsEqual(b) }
        }
        return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    /// ``same(_:_:)`` for optional text: both absent, or both present with the same bytes.
    @inlinable
    public static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): same(a, b)
        default: false
        }
    }

    /// Feeds `text`'s bytes to `hasher`: the hash that goes with ``same(_:_:)``.
    @inlinable
    public static func hash(_ text: String, into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
        hasher.combine(0xFF as UInt8)  // never a byte of UTF-8: ends the text, so ("ab", "c") and ("a", "bc") differ
    }

    /// ``hash(_:into:)`` for optional text.
    @inlinable
    public static func hash(_ text: String?, into hasher: inout Hasher) {
        guard let text else { return hasher.combine(false) }
        hasher.combine(true)
        hash(text, into: &hasher)
    }
}
