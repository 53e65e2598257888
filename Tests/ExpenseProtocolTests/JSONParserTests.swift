import TestSupport
import Testing
@testable import ExpenseProtocol

private func parse(_ text: String) throws(JSONParseError) -> JSONValue { try JSONParser.parse(Array(text.utf8)) }
private func parseError(_ bytes: [UInt8]) -> String? {
    do { _ = try JSONParser.parse(bytes); return nil } catch { return error.code }
}
private func parseError(_ text: String) -> String? { parseError(Array(text.utf8)) }

@Suite struct JSONParserTests {
    @Test func scalarsAndContainers() throws {
        #expect(try parse("null") == .null)
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("\t\r\n 12 ") == .number(JSONNumber(text: "12")))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object([:]))
        #expect(try parse(#"{"a":[1,{"b":null}],"c":"d"}"#) == ["a": [1, ["b": nil]], "c": "d"])
        #expect(try parse(#" [ 1 , 2 ] "#) == [1, 2])
    }

    @Test(arguments: ["0", "-0", "12", "-12", "12.5", "1e3", "1E+3", "1e-3", "0.000", "-1.5E-10", "1250.0"])
    func numbersKeepTheirText(text: String) throws {
        #expect(try parse(text) == .number(JSONNumber(text: text)))
    }

    @Test(arguments: ["01", "-", "+1", ".5", "1.", "1e", "1e+", "-a", "--1", "0x10", "1.e3", "NaN", "Infinity", "-01"])
    func badNumbers(text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func integerValues() throws {
        #expect(JSONNumber(text: "1250").int64 == 1250)
        #expect(JSONNumber(text: "-5").int64 == -5)
        #expect(JSONNumber(text: "1250.0").int64 == nil)
        #expect(JSONNumber(text: "1e3").int64 == nil)
        #expect(JSONNumber(text: "9223372036854775808").int64 == nil)
        #expect(JSONNumber(text: "9223372036854775807").int64 == Int64.max)
    }

    /// `int64` reads the digits in one pass; it must take exactly the texts the definition takes (only `-` and
    /// digits, then `Int64(text)`): edge cases, every prefix of the limits, and a seeded corpus.
    @Test func integerValuesAgreeWithTheDefinition() {
        func definition(_ text: String) -> Int64? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) }) else { return nil }
            return Int64(text)
        }
        var texts = ["", "-", "--", "0", "-0", "00", "007", "-007", "1-", "1-2", "-1-", "--1", "+1", "1.0", "1e3", " 1",
                     "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                     "18446744073709551616", "99999999999999999999", String(repeating: "0", count: 40) + "12",
                     "-" + String(repeating: "0", count: 40) + "9223372036854775808", "١٢", "１２"]
        for limit in ["9223372036854775807", "-9223372036854775808", "9223372036854775808"] {
            for end in limit.indices { texts.append(String(limit[...end])) }
        }
        var generator = SeededGenerator(seed: 11)
        let alphabet = Array("-0123456789.e+")
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...21, using: &generator)
            var text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<11, using: &generator)] })
            if Int.random(in: 0..<50, using: &generator) == 0 { text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
            texts.append(text)
            texts.append(String(Int64.random(in: .min ... .max, using: &generator)))
        }
        for text in texts {
            #expect(JSONNumber(text: text).int64 == definition(text), "\(text)")
        }
    }

    @Test func hugeNumberIsRefusedQuickly() {
        let text = String(repeating: "9", count: 10_000)
        #expect(parseError(text) == "number_too_long")
        #expect(parseError("[" + text + "]") == "number_too_long")
        #expect(parseError("1" + String(repeating: "0", count: 999)) == nil)
        #expect(parseError("1" + String(repeating: "0", count: 1000)) == "number_too_long")
    }

    @Test func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#) == .string("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti"))
        #expect(try parse(#""\u0041\u00e9\u20AC""#) == .string("Aé€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse("\"é😀\"") == .string("é😀"))
    }

    @Test(arguments: [
        (#""\ud83d""#, "lone_surrogate"), (#""\ude00""#, "lone_surrogate"), (#""\ud83d\u0041""#, "lone_surrogate"),
        (#""\ud83dx""#, "lone_surrogate"), (#""\x""#, "invalid_escape"), (#""\u12g4""#, "invalid_escape"),
        (#""\u12""#, "unexpected_end"), ("\"a\nb\"", "control_character_in_string"), ("\"a\tb\"", "control_character_in_string"),
        (#""abc"#, "unexpected_end"), ("", "empty_input"), ("   ", "empty_input"), ("[1,]", "unexpected_character"),
        ("{\"a\":1,}", "unexpected_character"), ("{\"a\" 1}", "unexpected_character"), ("{a:1}", "unexpected_character"),
        ("[1 2]", "unexpected_character"), ("tru", "unexpected_end"), ("trux", "unexpected_character"),
        ("1 2", "trailing_characters"), ("{} x", "trailing_characters"), ("[", "unexpected_end"), ("{", "unexpected_end"),
        ("'a'", "unexpected_character"), (#"{"a":1,"a":2}"#, "duplicate_key"),
    ])
    func errors(text: String, code: String) {
        #expect(parseError(text) == code)
    }

    @Test func duplicateKeyNamesTheKey() {
        #expect(throws: JSONParseError.duplicateKey("id")) { try parse(#"{"id":1,"x":{},"id":1}"#) }
        // Escaped and plain spellings of one key are the same key.
        #expect(throws: JSONParseError.duplicateKey("a")) { try parse(#"{"a":1,"\u0061":2}"#) }
        // The same key in different objects is fine.
        #expect(parseError(#"{"a":{"a":1},"b":{"a":2}}"#) == nil)
    }

    /// Not JSON wins over a duplicate key, wherever each stands: the text must be JSON before its keys count.
    @Test func aParseErrorAfterADuplicateKeyIsStillAParseError() {
        #expect(throws: JSONParseError.trailingCharacters) { try parse(#"{"a":1,"a":2} x"#) }
        #expect(throws: JSONParseError.unexpectedEnd) { try parse(#"{"a":1,"a":2"#) }
        #expect(throws: JSONParseError.nestingTooDeep) {
            try parse(#"{"a":1,"a":2,"b":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}")
        }
        let badUTF8 = Array(#"{"a":1,"a":2,"b":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(throws: JSONParseError.invalidUTF8) { try JSONParser.parse(badUTF8) }
    }

    @Test(arguments: [
        [0x22, 0x80, 0x22],                    // lone continuation byte
        [0x22, 0xC0, 0xAF, 0x22],              // overlong "/"
        [0x22, 0xC1, 0xBF, 0x22],              // overlong
        [0x22, 0xE0, 0x80, 0xAF, 0x22],        // overlong 3-byte
        [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22],  // overlong 4-byte
        [0x22, 0xED, 0xA0, 0x80, 0x22],        // encoded surrogate U+D800
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
        [0x22, 0xFF, 0x22],
        [0x22, 0xC3, 0x22],                    // truncated 2-byte sequence
        [0x22, 0xE2, 0x82, 0x22],              // truncated 3-byte sequence
        [0x22, 0xE2, 0x82],                    // truncated at end of input
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(parseError(bytes) == "invalid_utf8")
    }

    @Test func validMultibyteBoundaries() throws {
        let bytes: [UInt8] = [0x22, 0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80,
                              0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]
        #expect(try JSONParser.parse(bytes) == .string("\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{10000}\u{10FFFF}"))
    }

    @Test func byteOrderMarkIsRefused() {
        #expect(parseError([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == "unexpected_character")
    }

    @Test func nonASCIIOutsideStringsIsRefused() {
        #expect(parseError([0x5B, 0xC3, 0xA9, 0x5D]) == "unexpected_character")
    }

    @Test func depth() {
        #expect(parseError(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) == nil)
        #expect(parseError(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)) == "nesting_too_deep")
        #expect(parseError(String(repeating: "[", count: 100_000)) == "nesting_too_deep")
        #expect(parseError(String(repeating: "{\"a\":", count: 100_000)) == "nesting_too_deep")
    }

    @Test func slicesAndRawBuffers() throws {
        let bytes = Array("xx[1]yy".utf8)
        #expect(try JSONParser.parse(bytes[2..<5]) == [1])
        let value = try bytes[2..<5].withUnsafeBytes { raw throws(JSONParseError) in try JSONParser.parse(raw) }
        #expect(value == [1])
    }
}
