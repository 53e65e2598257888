import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Distinct texts, each numbered the first time it is seen (0, 1, 2, …), told apart by their exact UTF-8 bytes
/// (``ExpenseCore/ExactText``: "café" in NFC and in NFD are two texts with two numbers).
///
/// The categories and currency codes of ``LiveDayTotals``: a ledger has few distinct ones and many expenses, so
/// its totals hold a small number per cell instead of a `String`. A text is looked up from SQLite's bytes without
/// making a `String` (``number(ofBytes:)``), which is what opening a large ledger does for every record.
///
/// Open addressing with linear probing over `slots` (a text's number + 1; 0: empty), a power of two at most half
/// full, hashed with Swift's seeded `Hasher` (texts a client chooses cannot be aimed at one probe run). The
/// texts' bytes are kept end to end in `bytes` and compared with `memcmp`. Texts are never removed: a number
/// stays valid for the life of the table.
struct InternedTexts {
    /// The texts by number.
    private(set) var texts: [String] = []
    /// Every text's UTF-8 bytes, end to end; text `n` is `bytes[starts[n] ..< starts[n + 1]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]
    /// Each text's hash, by number (a probe compares bytes only when the hashes agree; growing rehashes nothing).
    private var hashes: [Int] = []
    private var slots: [UInt32] = Array(repeating: 0, count: 16)

    /// How many texts the table holds.
    var count: Int { texts.count }

    /// The text numbered `number`.
    subscript(number: UInt32) -> String { texts[Int(number)] }

    /// The number of the text with exactly `text`'s bytes, or `nil` when it was never seen.
    func number(of text: String) -> UInt32? {
        Self.withBytes(text) { find($0, hash: Self.hash($0)).number }
    }

    /// The number of the text with exactly these UTF-8 bytes, or `nil` when it was never seen.
    func number(ofBytes text: UnsafeBufferPointer<UInt8>) -> UInt32? {
        find(text, hash: Self.hash(text)).number
    }

    /// The number of `text`, numbering it if it is new.
    mutating func intern(_ text: String) -> UInt32 {
        Self.withBytes(text) { utf8 in
            let hash = Self.hash(utf8)
            let place = find(utf8, hash: hash)
            if let number = place.number { return number }
            let number = UInt32(texts.count)
            texts.append(text)
            bytes.append(contentsOf: utf8)
            starts.append(bytes.count)
            hashes.append(hash)
            slots[place.empty] = number + 1
            if texts.count * 2 > slots.count { grow() }
            return number
        }
    }

    /// The number of the text with these UTF-8 bytes, numbering it if it is new. Bytes that are not valid UTF-8
    /// (a damaged file) are numbered as the text `String(decoding:as:)` repairs them to, as reading them does.
    mutating func intern(bytes text: UnsafeBufferPointer<UInt8>) -> UInt32 {
        number(ofBytes: text) ?? intern(String(decoding: text, as: UTF8.self))
    }

    /// Where the text is (`number`), or the empty slot that ends its probe run (`empty`, when it is absent).
    private func find(_ text: UnsafeBufferPointer<UInt8>, hash: Int) -> (number: UInt32?, empty: Int) {
        bytes.withUnsafeBufferPointer { stored in
            let mask = slots.count - 1
            var index = hash & mask
            while true {
                let slot = slots[index]
                if slot == 0 { return (nil, index) }
                let number = Int(slot - 1)
                // The same text is the same bytes (ExactText), never Swift's canonical equivalence.
                if hashes[number] == hash, starts[number + 1] - starts[number] == text.count,
                   Self.same(stored, from: starts[number], text) {
                    return (slot - 1, index)
                }
                index = (index + 1) & mask
            }
        }
    }

    /// Whether `stored` holds `text`'s bytes from `start` on (its length already checked).
    private static func same(_ stored: UnsafeBufferPointer<UInt8>, from start: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = stored.baseAddress, let other = text.baseAddress else { return text.isEmpty }
        return memcmp(base + start, other, text.count) == 0
    }

    private mutating func grow() {
        var slots = [UInt32](repeating: 0, count: self.slots.count * 2)
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var index = hash & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = UInt32(number + 1)
        }
        self.slots = slots
    }

    private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(text))
        return hasher.finalize()
    }

    /// Calls `body` with `text`'s UTF-8 bytes (a native string's own storage; a copy otherwise).
    private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }
}
