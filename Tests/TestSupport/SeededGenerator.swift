/// A small deterministic pseudo-random generator (SplitMix64) for tests: the same seed gives the same
/// sequence on every run and every machine, so a failing random test is replayed from the seed it prints.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededGenerator {
    /// `bytes` with 1–3 random edits, for fuzzing a fast reader against its general one: each edit removes a byte,
    /// inserts or overwrites one from `alphabet`, or (when `truncating`) cuts the rest off at a random position.
    public mutating func mutated(_ bytes: [UInt8], alphabet: [UInt8], truncating: Bool = true) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...3, using: &self) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &self)
            switch Int.random(in: 0..<(truncating ? 4 : 3), using: &self) {
            case 0 where !bytes.isEmpty: bytes.remove(at: position)
            case 1: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &self)], at: position)
            case 2 where !bytes.isEmpty: bytes[position] = alphabet[Int.random(in: 0..<alphabet.count, using: &self)]
            default: if truncating { bytes = Array(bytes.prefix(position)) }
            }
        }
        return bytes
    }
}
