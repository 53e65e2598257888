import Testing
@testable import ExpenseTransport

/// An idle connection keeps no large buffer: once a large line is consumed (framer) or a large answer is written
/// (output), only ``LineFramer/retainedCapacity`` bytes of storage may stay (with 64 KiB kept per buffer, 5,000 idle
/// connections that had each carried a 60 KiB pull answer held up to 625 MiB).
@Suite struct IdleBufferTests {
    /// A line well under the old 64 KiB keep-threshold, so the test fails when anything above a small size is kept.
    static let largeLine = [UInt8](repeating: UInt8(ascii: "x"), count: 32 * 1024) + [UInt8(ascii: "\n")]

    @Test func theFramerGivesBackItsBufferOnceALargeLineIsConsumed() {
        var framer = LineFramer(maximumLineLength: 1 << 20)
        framer.append(contentsOf: Self.largeLine)
        guard case .line(let line) = framer.nextLine() else {
            Issue.record("no line")
            return
        }
        #expect(line.count == 32 * 1024)
        #expect(framer.nextLine() == nil)
        #expect(framer.bufferCapacity <= LineFramer.retainedCapacity)
        // A small line afterwards still frames, and a line split over two appends too.
        framer.append(contentsOf: Array("ping\npar".utf8))
        #expect(framer.nextLine() == .line(ArraySlice("ping".utf8)))
        #expect(framer.nextLine() == nil)
        framer.append(contentsOf: Array("tial\n".utf8))
        #expect(framer.nextLine() == .line(ArraySlice("partial".utf8)))
        #expect(framer.bufferCapacity <= LineFramer.retainedCapacity)
    }

    @Test func theFramerGivesBackItsBufferWhenTheNextAppendFindsEverythingConsumed() {
        var framer = LineFramer(maximumLineLength: 1 << 20)
        framer.append(contentsOf: Self.largeLine)
        _ = framer.nextLine()  // the caller stops at the line, without asking again
        framer.append(contentsOf: Array("ping\n".utf8))
        #expect(framer.bufferCapacity <= LineFramer.retainedCapacity)
        #expect(framer.nextLine() == .line(ArraySlice("ping".utf8)))
    }

    @Test func aSmallBufferIsKeptForTheNextLine() {
        var framer = LineFramer(maximumLineLength: 1 << 20)
        framer.append(contentsOf: Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.utf8) + [UInt8(ascii: "\n")])
        _ = framer.nextLine()
        #expect(framer.nextLine() == nil)
        #expect(framer.bufferCapacity > 0)  // kept: a ping per request does not allocate again
    }

    @Test func aConnectionGivesBackItsOutputBufferOnceALargeAnswerIsWritten() throws {
        let connection = try Self.connection()
        connection.output = Self.largeLine
        connection.outputOffset = 0
        connection.outputDrained()
        #expect(connection.output.capacity <= LineFramer.retainedCapacity)

        connection.output = Self.largeLine
        connection.outputOffset = Self.largeLine.count  // written, not yet marked drained
        LoopThread.running { connection.enqueue(Array("{}\n".utf8)) }
        #expect(connection.output == Array("{}\n".utf8))
        #expect(connection.output.capacity <= LineFramer.retainedCapacity)
    }

    /// An idle connection holds no output storage once its last answer is written, not even a small one: the
    /// answer's own array is shared with the caller, and keeping its capacity allocated a new buffer of its size.
    @Test func aWrittenAnswerLeavesNoOutputStorage() throws {
        let connection = try Self.connection()
        let answer = Array(repeating: UInt8(ascii: "x"), count: 400) + [UInt8(ascii: "\n")]
        LoopThread.running { connection.enqueue(answer) }
        connection.outputOffset = answer.count
        connection.outputDrained()
        #expect(connection.output.capacity == 0)

        LoopThread.running { connection.enqueue(answer) }
        connection.outputOffset = answer.count  // written, not yet marked drained: the next answer replaces it
        let next = Array("{}\n".utf8)
        LoopThread.running { connection.enqueue(next) }
        #expect(connection.output == next)
        withExtendedLifetime(answer) {}

        // A ping-sized answer appended in place keeps its small buffer for the next one, and no more.
        connection.outputOffset = next.count
        connection.outputDrained()
        let pong = Array(#"{"jsonrpc":"2.0","id":7,"result":{"cursor":12}}"#.utf8) + [UInt8(ascii: "\n")]
        LoopThread.running { connection.appendingOutput { $0.append(contentsOf: pong) } }
        connection.outputOffset = pong.count
        connection.outputDrained()
        #expect(connection.output.isEmpty)
        #expect(connection.output.capacity > 0 && connection.output.capacity <= LoopConnection.retainedOutputCapacity)
    }

    private static func connection() throws -> LoopConnection {
        let handle = ConnectionHandle(id: ConnectionID(fd: -1, generation: 1), mailbox: try LoopMailbox(),
                                      peerHost: "127.0.0.1")
        return LoopConnection(handle: handle, session: nil, counted: false, maximumLineLength: 1 << 20, now: 0)
    }
}
