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
