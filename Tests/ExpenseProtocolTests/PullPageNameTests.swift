import Testing
@testable import ExpenseProtocol

/// The pull-page scanner's member names, looked up by length and first bytes: each of its names is found, and a
/// name that differs from one of them in any byte, or is longer or shorter, is not (the general path takes it).
@Suite struct PullPageNameTests {
    static let names: [(String, PullPageScanner.Name)] = [
        ("id", .id), ("version", .version), ("seq", .seq), ("deleted", .deleted), ("changes", .changes),
        ("cursor", .cursor), ("more", .more), ("jsonrpc", .jsonrpc), ("result", .result),
    ] + ExpenseFields.all.enumerated().map { ($1.name, .field($0)) }

    private func name(_ text: String) -> PullPageScanner.Name? {
        let line = Array("\"\(text)\": 1".utf8)
        return line.withUnsafeBufferPointer { buffer in
            var scanner = PullPageScanner(reader: JSONReader(bytes: buffer))
            return scanner.memberName()
        }
    }

    @Test func everyNameIsFound() {
        for (text, expected) in Self.names { #expect(name(text) == expected, "\(text)") }
    }

    @Test func nearMissesAreNotNames() {
        let known = Set(Self.names.map(\.0))
        for (text, _) in Self.names {
            let bytes = Array(text.utf8)
            var misses = [String(text.dropLast()), text + "s", String(text.dropFirst()), text.uppercased(), "x" + text]
            for index in bytes.indices {
                for replacement in [UInt8(ascii: "a"), UInt8(ascii: "u"), UInt8(ascii: "z"), UInt8(ascii: "_")] {
                    var edited = bytes
                    edited[index] = replacement
                    misses.append(String(decoding: edited, as: UTF8.self))
                }
            }
            for miss in misses where !known.contains(miss) { #expect(name(miss) == nil, "\(miss)") }
        }
        for miss in ["", "i", "c", "cu", "ca", "categor", "currenc"] { #expect(name(miss) == nil, "\(miss)") }
    }
}
