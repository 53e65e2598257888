import ExpenseCore
import Foundation
import Testing
import TestSupport
@testable import ExpenseProtocol

/// The fast pull-page decoder against the general path (`RPCClientCodec.parse` then `decodeResult`): on every
/// line it returns nil or exactly the general path's id and result.
@Suite struct PullPageDecoderTests {
    /// Random pages written by the daemon's own encoder (escapes, Unicode, tombstones, empty pages) are all taken
    /// by the fast path, and give what the general path gives.
    @Test func randomPagesDecodeLikeTheGeneralPath() throws {
        var random = PageGenerator(seed: 20_261_130)
        for round in 0..<300 {
            let line = random.responseLine(id: Int64(round), records: Int.random(in: 0...40, using: &random.generator))
            let fast = try #require(PullPageDecoder.decode(line), "round \(round): \(String(decoding: line, as: UTF8.self))")
            try expectSameAsGeneral(line, fast)
        }
    }

    /// Hand-written lines the fast path takes: whitespace, other member orders, escapes in values, upper-case ids.
    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false}}"#,
        #" { "id" : 7 , "result" : { "more" : true , "cursor" : 12 , "changes" : [ ] } , "jsonrpc" : "2.0" } "#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"version":2,"seq":3,"note":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \n\t","id":"6F9619FF-8B86-D011-B42D-00CF4FC964FF","deleted":true,"date":"2026-11-30","currency":"EUR","category":"  food\u0020","amount":1250}],"cursor":3,"more":false}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":-0,\"result\":{\"changes\":[{\"amount\":1,\"category\":\"日本 é\",\"currency\":\"JPY\",\"date\":\"1900-01-01\",\"deleted\":false,\"id\":\"6f9619ff-8b86-d011-b42d-00cf4fc964ff\",\"note\":\"\",\"seq\":0,\"version\":1}],\"cursor\":9223372036854775807,\"more\":false}}\r\n",
    ])
    func acceptedVariants(_ text: String) throws {
        let line = Array(text.utf8)
        let fast = try #require(PullPageDecoder.decode(line))
        try expectSameAsGeneral(line, fast)
    }

    /// The fast path's two fallbacks: an id written with escapes (read as a string, then parsed) and a category or
    /// note beyond the byte limits a stored record may pass (Protocol.md §6: validated as stored, the id as text).
    @Test func escapedIdsAndTextBeyondTheByteLimitsDecodeLikeTheGeneralPath() throws {
        let wide = String(repeating: "👍🏽", count: 40)   // 40 characters, 320 bytes
        let long = String(repeating: "👍🏽", count: 300)  // 300 characters, 2,400 bytes
        func line(id: String, category: String = "food", note: String = "") -> [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":4,"result":{"changes":[{"amount":5,"category":"\#(category)","currency":"EUR","date":"2026-11-30","deleted":false,"id":"\#(id)","note":"\#(note)","seq":1,"version":1}],"cursor":1,"more":false}}"#.utf8)
        }
        for text in [line(id: #"\u0036f9619ff-8b86-d011-b42d-00cf4fc964ff"#),
                     line(id: #"6f9619ff-8b86-d011-b42d-00cf4fc964f\u0066"#),
                     line(id: "6F9619FF-8B86-D011-B42D-00CF4FC964FF", category: wide),
                     line(id: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", note: long),
                     line(id: "6f9619ff-8b86-d011-b42d-00cf4fc964ff", category: wide, note: long)] {
            let fast = try #require(PullPageDecoder.decode(text), "\(String(decoding: text, as: UTF8.self))")
            try expectSameAsGeneral(text, fast)
        }
        // An id of 36 bytes holding an escape, or not a UUID, is left to the general path (which refuses it).
        #expect(PullPageDecoder.decode(line(id: #"6f9619ff-8b86-d011-b42d-00cf4fc964\""#)) == nil)
        #expect(PullPageDecoder.decode(line(id: "6f9619ff-8b86-d011-b42d-00cf4fc964fg")) == nil)
    }

    /// Lines the fast path leaves to the general path (which may take or refuse them): it never answers differently.
    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"no","data":{"reason":"unauthorized"}}}"#,
        #"{"jsonrpc":"2.0","method":"changed","params":{"cursor":3}}"#,
        #"{"jsonrpc":"2.0","id":"7","result":{"changes":[],"cursor":0,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false,"extra":1}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false},"x":null}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false,"more":true}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"ch\u0061nges":[],"cursor":0,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":1.0,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":1e3,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":01,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":9223372036854775808,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false}} x"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[],"cursor":0,"more":false}"#,
        #"{"jsonrpc":"1.0","id":7,"result":{"changes":[],"cursor":0,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":0,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","seq":1,"version":1}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"\u0001","seq":1,"version":1}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":0}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":-1,"version":1}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1,"extra":true}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":0,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}],"cursor":1,"more":false}}"#,
        #"{"jsonrpc":"2.0","id":7,"result":{"changes":[{"amount":5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964f","note":"","seq":1,"version":1}],"cursor":1,"more":false}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"changes\":[],\"cursor\":0,\"more\":false,\"x\":\"\u{FFFD}\"}}",
    ])
    func leftToTheGeneralPath(_ text: String) throws {
        let line = Array(text.utf8)
        #expect(PullPageDecoder.decode(line) == nil)
    }

    /// Integers of 1 to 22 digits, with and without a sign or a leading zero, around Int64's limits, followed by
    /// a fraction or an exponent: the fast path takes exactly the ones the general path reads as an Int64, with
    /// the same value (it reads at most nineteen digits before deciding).
    @Test func integersOfEveryLengthAreReadLikeTheGeneralPath() throws {
        var texts = ["0", "-0", "00", "01", "-01", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                     "-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999",
                     "10000000000000000000", "1.0", "1e3", "12E1", "-", "--1"]
        for digits in 1...22 {
            texts += [String(repeating: "9", count: digits), "1" + String(repeating: "0", count: digits - 1),
                      "-" + String(repeating: "7", count: digits), "0" + String(repeating: "5", count: digits)]
        }
        for text in texts {
            let line = Array(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":\#(text),"more":false}}"#.utf8)
            let general = try? RPCClientCodec.parse(line).decodeResult(as: PullResult.self)
            let fast = PullPageDecoder.decode(line)
            if let fast { #expect(fast.result == general, "\(text)") }
            // A plain integer within Int64 (no leading zero) is the fast path's to take.
            let plain = text.drop { $0 == "-" }.allSatisfy(\.isNumber) && !text.drop { $0 == "-" }.hasPrefix("0")
            if plain, text.filter({ $0 == "-" }).count <= 1, Int64(text) != nil { #expect(fast != nil, "\(text)") }
        }
    }

    /// Random byte edits of valid lines (invalid UTF-8, broken escapes, cut numbers, stray characters): whenever
    /// the fast path answers, the general path answers the same.
    @Test func mutatedPagesNeverDisagree() throws {
        var random = PageGenerator(seed: 7_777)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \tnutrfalsu"#.utf8) + [0x0A, 0x09, 0x0D, 0x20, 0x00, 0x80, 0xC3, 0xA9, 0xED, 0xF4, 0xFF]
        var taken = 0
        for round in 0..<5_000 {
            var line = random.responseLine(id: Int64(round), records: Int.random(in: 0...3, using: &random.generator))
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) {
                let position = Int.random(in: 0..<line.count, using: &random.generator)
                let byte = alphabet.randomElement(using: &random.generator) ?? 0
                switch Int.random(in: 0..<3, using: &random.generator) {
                case 0: line[position] = byte
                case 1: line.insert(byte, at: position)
                default: line.remove(at: position)
                }
            }
            guard let fast = PullPageDecoder.decode(line) else { continue }
            taken += 1
            do {
                try expectSameAsGeneral(line, fast)
            } catch {
                Issue.record("round \(round): the general path refuses \(Array(line)) (\(error)); the fast path took it")
            }
        }
        #expect(taken > 0)
    }

    /// A record as the daemon writes it is read by its fixed fragments (``PullPageScanner/daemonLayoutRecord()``),
    /// which gives exactly what reading it member by member gives; one written otherwise is not, and is left to
    /// the member-by-member reading.
    @Test func theDaemonsLayoutIsReadByItsFragmentsLikeMemberByMember() throws {
        var random = PageGenerator(seed: 2_026_120_2)
        var read = 0
        for round in 0..<2_000 {
            guard let record = random.record() else { continue }
            var writer = JSONWriter()
            record.write(to: &writer)
            let bytes = writer.bytes
            let (fast, memberwise) = bytes.withUnsafeBufferPointer { buffer in
                var first = PullPageScanner(reader: JSONReader(bytes: buffer))
                var second = PullPageScanner(reader: JSONReader(bytes: buffer))
                let fast = first.daemonLayoutRecord()
                #expect(fast == nil || first.reader.index == buffer.count, "round \(round): read to the object's end")
                return (fast, second.memberwiseRecord())
            }
            #expect(memberwise == record, "round \(round)")
            // Within the byte limits and written without escapes in the currency and the date: always the fast path.
            #expect(fast == memberwise, "round \(round)")
            if fast != nil { read += 1 }
        }
        #expect(read > 1_000)  // every valid record of the 2,000 drafts (a control character makes some invalid)
        // Another member order, or whitespace: not the daemon's layout.
        for text in [#"{"category":"food","amount":5,"currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}"#,
                     #"{"amount": 5,"category":"food","currency":"EUR","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}"#,
                     #"{"amount":5,"category":"food","currency":"E\u0055R","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"","seq":1,"version":1}"#] {
            let bytes = Array(text.utf8)
            let (fast, memberwise) = bytes.withUnsafeBufferPointer { buffer in
                var first = PullPageScanner(reader: JSONReader(bytes: buffer))
                var second = PullPageScanner(reader: JSONReader(bytes: buffer))
                return (first.daemonLayoutRecord(), second.memberwiseRecord())
            }
            #expect(fast == nil, "\(text)")
            #expect(memberwise != nil, "\(text)")
        }
    }

    /// The cursor a line announces: from its first bytes, `{"jsonrpc":"2.0","id":<digits>,"result":{"cursor":<digits>,
    /// "more":true,` (this daemon's layout), or from the end of a whole line of the older layout,
    /// `,"cursor":<digits>,"more":true}}`; nothing else gives one.
    @Test func announcedCursorReadsTheLinesStartOrAnOlderLinesEnd() {
        func cursor(_ text: String) -> Int64? { PullPageDecoder.announcedCursor(Array(text.utf8)[...]) }
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":12345,"more":true,"changes":[]}}"#) == 12345)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":12345,"more":true,"#) == 12345)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":0,"more":true,"ch"#) == 0)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":12345,"more":true"#) == nil)  // not yet known
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":12345"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":12345,"more":false,"changes":[]}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":"3","result":{"cursor":12345,"more":true,"changes":[]}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":-1,"more":true,"changes":[]}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor":99999999999999999999,"more":true,"changes":[]}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"cursor": 5,"more":true,"changes":[]}}"#) == nil)
        // The older layout, read from a whole line's end.
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":12345,"more":true}}"#) == 12345)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":0,"more":true}}"#) == 0)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":12345,"more":false}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":-1,"more":true}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor":99999999999999999999,"more":true}}"#) == nil)
        #expect(cursor(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[],"cursor": 5,"more":true}}"#) == nil)
        #expect(cursor(#","cursor":,"more":true}}"#) == nil)
        #expect(cursor(#"cursor":5,"more":true}}"#) == nil)
        #expect(cursor("") == nil)
        // The daemon's pages: the whole line, and every start of it long enough to hold the cursor and `more`.
        var random = PageGenerator(seed: 99)
        for round in 0..<50 {
            let line = random.responseLine(id: Int64(round), records: 3)
            guard let page = PullPageDecoder.decode(line)?.result else { continue }
            let announced = page.more ? page.cursor : nil
            #expect(PullPageDecoder.announcedCursor(line[...]) == announced)
            let head = Array(#"{"jsonrpc":"2.0","id":\#(round),"result":{"cursor":\#(page.cursor),"more":\#(page.more),"#.utf8)
            #expect(line.starts(with: head))
            for length in 0..<line.count {
                #expect(PullPageDecoder.announcedCursor(line[..<length]) == (length >= head.count ? announced : nil))
            }
        }
    }

    private func expectSameAsGeneral(_ line: [UInt8], _ fast: (id: RequestID, result: PullResult),
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let message = try RPCClientCodec.parse(line)
        guard case .response(let id, _) = message else {
            Issue.record("the general path reads a notification", sourceLocation: sourceLocation)
            return
        }
        let result = try message.decodeResult(as: PullResult.self)
        #expect(id == fast.id, sourceLocation: sourceLocation)
        #expect(result == fast.result, sourceLocation: sourceLocation)
        // Byte for byte too (String equality is canonical equivalence, which would hide a different encoding).
        #expect(result.jsonBytes == fast.result.jsonBytes, sourceLocation: sourceLocation)
    }
}

/// Random records and pull responses, deterministic per seed.
private struct PageGenerator {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    private static let pieces = ["food", "rent", " ", "é", "e\u{301}", "日本", "😀", "\"", "\\", "/", "\n", "\t",
                                 "\u{7F}", "\u{2028}", "\u{FEFF}", "a", "Z", "0", "<>&", "\u{10FFFF}"]
    private static let currencies = ["USD", "EUR", "JPY", "GBP", "CHF"]

    mutating func text(maximum: Int) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            text += Self.pieces.randomElement(using: &generator) ?? ""
        }
        return String(text.prefix(maximum))
    }

    mutating func record() -> Record? {
        var raw: [UInt8] = []
        for _ in 0..<16 { raw.append(UInt8.random(in: 0...255, using: &generator)) }
        let id = UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7], raw[8], raw[9], raw[10],
                             raw[11], raw[12], raw[13], raw[14], raw[15]))
        let draft = ExpenseDraft(
            id: UUIDText.lowercased(id), amount: Int64.random(in: 1...ExpenseRules.maximumAmount, using: &generator),
            currency: Self.currencies.randomElement(using: &generator), category: "c" + text(maximum: 60),
            date: String(format: "%04d-%02d-%02d", Int.random(in: 1900...9999, using: &generator),
                         Int.random(in: 1...12, using: &generator), Int.random(in: 1...28, using: &generator)),
            note: text(maximum: 300))
        // Some drafts break a rule (a control character in the category): those are skipped.
        guard let expense = try? ExpenseValidator.validate(draft) else { return nil }
        return Record(expense: expense, version: Int64.random(in: 1...1_000, using: &generator),
                      seq: Int64.random(in: 0...Int64.max, using: &generator), deleted: Bool.random(using: &generator))
    }

    mutating func responseLine(id: Int64, records count: Int) -> [UInt8] {
        let records = (0..<count).compactMap { _ in record() }
        let page = PullResult(changes: records, cursor: Int64.random(in: 0...Int64.max, using: &generator),
                              more: Bool.random(using: &generator))
        var line = RPCResponse.success(id: RequestID(id), result: page)
        line.removeLast()  // the `\n`, as the line reader hands it over
        return line
    }
}

