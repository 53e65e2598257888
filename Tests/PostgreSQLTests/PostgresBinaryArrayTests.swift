import Foundation
import PostgreSQL
import Testing
import TestSupport

/// ``PostgreSQL/PostgresBinaryArray``, the binary form of the `unnest` parameters the store writes its rows with:
/// the exact bytes of `array_send` without a cluster, and every element read back as itself through one, against
/// the same values sent in the text form (``PostgreSQL/PostgresValue/array(_:)``).
struct PostgresBinaryArrayTests {
    static let tricky = ["", "NULL", "null", " spaced ", "a,b", "{braces}", "\"quoted\"", "back\\slash", "\\\"",
                         "caf\u{E9} cafe\u{301} 😀", "tab\tnew\nline", "'single'"]
    static let integers: [Int64] = [0, 1, -1, 255, 256, -256, 123_456_789, .max, .min, .max - 1, .min + 1, 9_007_199_254_740_991]

    @Test func bytesAreWhatArraySendWrites() {
        var numbers = PostgresBinaryArray(.int8)
        numbers.append(1)
        numbers.appendNull()
        numbers.append(-2)
        // ndim 1, has NULL, int8's OID 20, length 3, lower bound 1; then length and bytes (or -1) per element.
        #expect(numbers.value == .binary([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 1,
                                          0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1,
                                          255, 255, 255, 255,
                                          0, 0, 0, 8, 255, 255, 255, 255, 255, 255, 255, 254], type: 1016))
        var small = PostgresBinaryArray(.int2)
        small.append(-1)
        var days = PostgresBinaryArray(.int4)
        days.append(20_261_130)
        #expect(small.value == .binary([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 255, 255], type: 1005))
        #expect(days.value == .binary([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 1, 53, 41, 10],
                                      type: 1007))
        var texts = PostgresBinaryArray(.text)
        texts.append("é")
        #expect(texts.value == .binary([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 25, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0xC3, 0xA9], type: 1009))
        var fromBytes = PostgresBinaryArray(.text), fromStrings = PostgresBinaryArray(.text)
        for text in Self.tricky {
            fromBytes.append(utf8: Array(("<" + text + ">").utf8).dropFirst().dropLast())
            fromStrings.append(text)
        }
        #expect(fromBytes.value == fromStrings.value)
        // Empty: no dimension at all, as the server writes an empty array.
        #expect(PostgresBinaryArray(.uuid).value == .binary([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, 134], type: 2951))
        let id = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")
        var ids = PostgresBinaryArray(.uuid)
        if let id { ids.append(id) }
        #expect(ids.value == .binary([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 134, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 16]
                                     + (0...15).map { UInt8($0 * 0x11) }, type: 2951))
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func everyElementReadsBackAsItsTextFormDoes() throws {
        let connection = try PostgresConnection(try PostgresTestCluster.required())
        func unnest(_ type: String, _ binary: PostgresValue, _ text: PostgresValue) throws -> [String?] {
            let sql = "SELECT * FROM unnest($1::\(type)[]) WITH ORDINALITY ORDER BY 2"
            let viaBinary = try connection.query(sql, [binary]).all.map { $0.optionalText(0) }
            #expect(viaBinary == (try connection.query(sql, [text]).all.map { $0.optionalText(0) }), "\(type)")
            return viaBinary
        }
        var texts = PostgresBinaryArray(.text)
        for text in Self.tricky { texts.append(text) }
        texts.appendNull()
        let readTexts = try unnest("text", texts.value, .array(Self.tricky.map { .text($0) } + [.null]))
        #expect(readTexts.map { $0.map { Array($0.unicodeScalars) } } == Self.tricky.map { Array($0.unicodeScalars) } + [nil])
        var numbers = PostgresBinaryArray(.int8)
        for number in Self.integers { numbers.append(number) }
        #expect(try unnest("bigint", numbers.value, .array(Self.integers.map { .integer($0) })) == Self.integers.map { String($0) })
        let narrow: [Int64] = [0, 1, -1, 32_767, -32_768, 255, 256]
        var int4 = PostgresBinaryArray(.int4), int2 = PostgresBinaryArray(.int2)
        for number in narrow + [Int64(Int32.max), Int64(Int32.min), 20_261_130] { int4.append(number) }
        for number in narrow { int2.append(number) }
        #expect(try unnest("integer", int4.value, .array((narrow + [Int64(Int32.max), Int64(Int32.min), 20_261_130]).map { .integer($0) }))
                    .count == narrow.count + 3)
        #expect(try unnest("smallint", int2.value, .array(narrow.map { .integer($0) })) == narrow.map { String($0) })
        var flags = PostgresBinaryArray(.bool)
        flags.append(true)
        flags.append(false)
        flags.appendNull()
        #expect(try unnest("boolean", flags.value, .array([.bool(true), .bool(false), .null])) == ["t", "f", nil])
        let uuids = (0..<5).map { _ in UUID() }
        var ids = PostgresBinaryArray(.uuid)
        for id in uuids { ids.append(id) }
        #expect(try unnest("uuid", ids.value, .array(uuids.map { .text($0.uuidString.lowercased()) }))
                    == uuids.map { $0.uuidString.lowercased() })
        var blobs = PostgresBinaryArray(.bytea)
        blobs.append(bytes: [0, 1, 0xFF])
        blobs.append(bytes: [])
        let readBlobs = try connection.query("SELECT encode(b, 'hex') FROM unnest($1::bytea[]) WITH ORDINALITY AS u(b, n) ORDER BY n",
                                             [blobs.value]).all
        #expect(readBlobs.map { $0.hexBytes(0) } == [[0, 1, 0xFF], []])
        #expect(try unnest("uuid", PostgresBinaryArray(.uuid).value, .array([])) == [])
    }
}
