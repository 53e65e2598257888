import Foundation
import PostgreSQL
import Testing
import TestSupport

/// ``PostgreSQL/PostgresValue/array(_:)``, the text form of the `unnest` parameters: exact literals without a
/// cluster, and every element read back as itself through one.
struct PostgresArrayTextTests {
    static let tricky = ["", "NULL", "null", " spaced ", "a,b", "{braces}", "\"quoted\"", "back\\slash", "\\\"",
                         "caf\u{E9} cafe\u{301} 😀", "tab\tnew\nline", "'single'"]
    static let integers: [Int64] = [0, 1, -1, 9, 10, -10, 123_456_789, .max, .min, .max - 1, .min + 1, 9_007_199_254_740_991]

    @Test func literalsAreQuotedOnlyWhereNeeded() {
        #expect(PostgresValue.array([]) == .text("{}"))
        #expect(PostgresValue.array([.integer(.min), .integer(0), .integer(.max), .integer(-7)])
                == .text("{-9223372036854775808,0,9223372036854775807,-7}"))
        #expect(PostgresValue.array([.bool(true), .bool(false), .null]) == .text("{t,f,NULL}"))
        #expect(PostgresValue.array([.text("a\"b\\c"), .text(""), .text("NULL")]) == .text(#"{"a\"b\\c","","NULL"}"#))
    }

    @Test func integersAreWrittenAsStringWritesThem() {
        var seeded = SeededGenerator(seed: 16)
        let numbers = Self.integers + (0..<2000).map { _ in Int64.random(in: .min ... .max, using: &seeded) >> Int64.random(in: 0...63) }
        for number in numbers {
            #expect(PostgresValue.array([.integer(number)]) == .text("{\(number)}"))
        }
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func everyElementReadsBackAsItself() throws {
        let connection = try PostgresConnection(try PostgresTestCluster.required())
        let texts = try connection.query("SELECT * FROM unnest($1::text[]) WITH ORDINALITY ORDER BY 2",
                                         [.array(Self.tricky.map { .text($0) } + [.null])]).all
        #expect(texts.map { $0.optionalText(0).map { Array($0.unicodeScalars) } }
                == Self.tricky.map { Array($0.unicodeScalars) } + [nil])
        let numbers = try connection.query("SELECT * FROM unnest($1::bigint[]) WITH ORDINALITY ORDER BY 2",
                                           [.array(Self.integers.map { .integer($0) })]).all
        #expect(numbers.map { $0.int64(0) } == Self.integers)
        let flags = try connection.query("SELECT * FROM unnest($1::boolean[]) WITH ORDINALITY ORDER BY 2",
                                         [.array([.bool(true), .bool(false), .null])]).all
        #expect(flags.map { $0.optionalText(0) } == ["t", "f", nil])
        let ids = (0..<5).map { _ in UUID() }
        let uuids = try connection.query("SELECT * FROM unnest($1::uuid[]) WITH ORDINALITY ORDER BY 2",
                                         [.array(ids.map { .text($0.uuidString.lowercased()) })]).all
        #expect(uuids.map { $0.text(0) } == ids.map { $0.uuidString.lowercased() })
    }
}
