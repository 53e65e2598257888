import Testing
@testable import ExpenseTransport

/// Feeds `input` in chunks of `chunkSize` and collects every line (as strings) and whether `tooLong` was seen.
private func frame(_ input: [UInt8], chunkSize: Int, limit: Int) -> (lines: [String], tooLong: Bool) {
    var framer = LineFramer(maximumLineLength: limit)
    var lines: [String] = []
    var index = 0
    while index < input.count {
        let end = min(index + chunkSize, input.count)
        framer.append(contentsOf: input[index..<end])
        index = end
        while let result = framer.nextLine() {
            switch result {
            case .line(let bytes): lines.append(String(decoding: bytes, as: UTF8.self))
            case .tooLong: return (lines, true)
            }
        }
    }
    return (lines, false)
}

@Suite struct LineFramerTests {
    static let text = "{\"a\":1}\n\r\n\nsecond line\r\nthird\n\n  \nlast-without-newline"

    @Test(arguments: 1...64)
    func splitsAtEveryChunkSize(chunkSize: Int) {
        let result = frame(Array(Self.text.utf8), chunkSize: chunkSize, limit: 100)
        #expect(result.lines == ["{\"a\":1}", "second line", "third", "  "])
        #expect(!result.tooLong)
    }

    @Test(arguments: [1, 2, 3, 7, 10, 11, 12, 13, 50])
    func limitIsExactAtEveryChunkSize(chunkSize: Int) {
        let ten = String(repeating: "x", count: 10)
        // Exactly at the limit, with \n and with \r\n: accepted.
        let ok = frame(Array("\(ten)\n\(ten)\r\n".utf8), chunkSize: chunkSize, limit: 10)
        #expect(ok.lines == [ten, ten])
        #expect(!ok.tooLong)
        // One over: refused, whether or not the newline has arrived.
        let over = frame(Array("\(ten)y\n".utf8), chunkSize: chunkSize, limit: 10)
        #expect(over.tooLong)
        #expect(over.lines.isEmpty)
        let overNoNewline = frame(Array("ok\n\(ten)yz".utf8), chunkSize: chunkSize, limit: 10)
        #expect(overNoNewline.lines == ["ok"])
        #expect(overNoNewline.tooLong)
    }

    @Test func reportsTooLongBeforeTheNewlineArrives() {
        var framer = LineFramer(maximumLineLength: 1024)
        let chunk = [UInt8](repeating: 0x41, count: 1000)
        framer.append(contentsOf: chunk)
        #expect(framer.nextLine() == nil)
        framer.append(contentsOf: chunk)
        #expect(framer.nextLine() == .tooLong)
        #expect(framer.bufferedByteCount == 0)
        // Poisoned: later input is ignored.
        framer.append(contentsOf: Array("ok\n".utf8))
        #expect(framer.nextLine() == .tooLong)
    }

    @Test func neverBuffersMoreThanTheLimit() {
        var framer = LineFramer(maximumLineLength: 4096)
        var sawTooLong = false
        for _ in 0..<10_000 {
            framer.append(contentsOf: [UInt8](repeating: 0x20, count: 100))
            if framer.nextLine() == .tooLong { sawTooLong = true; break }
            #expect(framer.bufferedByteCount <= 4097)
        }
        #expect(sawTooLong)
    }

    @Test func invalidUTF8PassesThroughAsBytes() {
        var framer = LineFramer()
        framer.append(contentsOf: [0xFF, 0xFE, 0x0A])
        #expect(framer.nextLine() == .line([0xFF, 0xFE][...]))
    }

    @Test func manyPipelinedLinesInOneAppend() {
        var framer = LineFramer()
        let input = (0..<10_000).map { "line \($0)\n" }.joined()
        framer.append(contentsOf: Array(input.utf8))
        var count = 0
        while case .line(let bytes)? = framer.nextLine() {
            #expect(String(decoding: bytes, as: UTF8.self) == "line \(count)")
            count += 1
        }
        #expect(count == 10_000)
        #expect(framer.bufferedByteCount == 0)
    }

    @Test func byteAtATimeLongLineIsLinear() {
        // 200 KiB one byte at a time: quadratic rescanning would take seconds.
        var framer = LineFramer()
        for _ in 0..<(200 * 1024) {
            framer.append(contentsOf: CollectionOfOne(UInt8(0x61)))
            #expect(framer.nextLine() == nil)
        }
        framer.append(contentsOf: CollectionOfOne(UInt8(0x0A)))
        guard case .line(let bytes)? = framer.nextLine() else {
            Issue.record("expected a line")
            return
        }
        #expect(bytes.count == 200 * 1024)
    }
}
