import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

@Suite struct JSONWriterTests {
    @Test func builder() {
        var writer = JSONWriter()
        writer.object { writer in
            writer.key("cursor"); writer.int(5)
            writer.key("list"); writer.array { writer in
                writer.int64(-9_223_372_036_854_775_808); writer.int64(0); writer.bool(true); writer.null()
                writer.object { _ in }
            }
            writer.member("s", "x")
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"cursor":5,"list":[-9223372036854775808,0,true,null,{}],"s":"x"}"#)
    }

    @Test func escaping() {
        var writer = JSONWriter()
        writer.string("a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{7F}é😀/")
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == "\"a\\\"b\\\\c\\nd\\re\\tf\\u0000g\\u001fh\u{7F}é😀/\"")
        #expect(!writer.bytes.contains(0x0A))
        #expect(!writer.bytes.contains(0x0D))
    }

    @Test func sortedKeysAreDeterministic() {
        let value: JSONValue = ["b": 1, "a": ["z": true, "é": nil, "Z": "x"], "aa": [1, "2"]]
        #expect(value.jsonText == #"{"a":{"Z":"x","z":true,"é":null},"aa":[1,"2"],"b":1}"#)
    }

    @Test func uuidIsLowerCase() throws {
        let id = try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF"))
        var writer = JSONWriter()
        writer.uuid(id)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\"")
    }

    @Test(arguments: ["", "plain", "with \"quotes\" and \\ and \u{8}\u{C}", "line\nbreak", "\u{0}\u{1}\u{2}", "ünïcödé 😀 e\u{301}"])
    func stringRoundTrip(text: String) throws {
        var writer = JSONWriter()
        writer.string(text)
        #expect(try JSONParser.parse(writer.bytes) == .string(text))
    }

    @Test func valueRoundTrip() throws {
        let value: JSONValue = ["n": .number(JSONNumber(text: "-1.5e10")), "a": [nil, false, "x\ny", ["k": []]], "e": [:]]
        #expect(try JSONParser.parse(value.jsonBytes) == value)
    }
}

@Suite struct JSONWriterDayTests {
    @Test(arguments: [(1900, 1, 1, "1900-01-01"), (9999, 12, 31, "9999-12-31"), (2026, 2, 9, "2026-02-09")])
    func dayIsZeroPadded(year: Int, month: Int, day: Int, text: String) {
        var writer = JSONWriter()
        writer.day(year: year, month: month, day: day)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(text)\"")
    }
}

/// The cursor's scalars written two digits at a time and copied eight bytes at a time give exactly the text of
/// the plain forms: `String(value)` for integers, a byte-by-byte escaper for strings, `CalendarDay.description`
/// for days.
@Suite struct JSONByteCursorTests {
    @Test func integersAreTheirDecimalText() {
        var values: [Int64] = [0, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, -power, -(power - 1)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator)) }
        for value in values {
            var writer = JSONWriter()
            writer.int64(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
    }

    @Test func stringsOfEveryShortLengthAndEveryASCIIByteAreEscapedByteForByte() {
        func reference(_ bytes: [UInt8]) -> String {
            var out = "\""
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out += "\\\""
                case UInt8(ascii: "\\"): out += "\\\\"
                case 0x0A: out += "\\n"
                case 0x0D: out += "\\r"
                case 0x09: out += "\\t"
                case 0..<0x20: out += "\\u00" + String(byte, radix: 16).leftPadded(to: 2)
                default: out += String(decoding: [byte], as: UTF8.self)
                }
            }
            return out + "\""
        }
        for length in 0...40 {
            for byte in UInt8(0)..<0x80 {
                for position in Set([0, length / 2, max(length - 1, 0)]) where length > 0 || position == 0 {
                    var bytes = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    if length > 0 { bytes[position] = byte }
                    var writer = JSONWriter()
                    writer.string(String(decoding: bytes, as: UTF8.self))
                    #expect(String(decoding: writer.bytes, as: UTF8.self) == reference(bytes), "\(length) \(byte) \(position)")
                }
            }
        }
    }

    @Test func everyDayOfTheRangeIsItsDescription() throws {
        var day = try #require(CalendarDay("1900-01-01"))
        let last = try #require(CalendarDay("9999-12-31"))
        var count = 0
        while day <= last {
            var writer = JSONWriter()
            writer.day(year: day.year, month: day.month, day: day.day)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(day.description)\"")
            count += 1
            guard let next = day.adding(days: 97) else { break }
            day = next
        }
        #expect(count > 30_000)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(width - count, 0)) + self }
}
