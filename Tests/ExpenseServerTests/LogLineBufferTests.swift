import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ExpenseServer

/// The standard-error log's buffer: the same lines, in the same order, written at once outside a group and
/// together once a group's answers are all given (one `write` per group commit).
@Suite struct LogLineBufferTests {
    /// A pipe whose read end does not block (what is not written yet reads as nothing).
    private final class Pipe {
        let readEnd: Int32, writeEnd: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            readEnd = ends[0]
            writeEnd = ends[1]
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        /// What has been written so far and not read yet.
        func drain() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes.append(contentsOf: chunk[0..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static let seconds = 1_764_633_599  // 2025-12-01T23:59:59Z

    @Test func aLineOutsideAGroupIsWrittenAtOnceWithTheDaemonsPrefixAndTimeStamp() throws {
        let pipe = try Pipe()
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd)
        buffer.append("connection 1 from 127.0.0.1: push to ledger 'default' by x: 1 applied", secondsSince1970: Self.seconds)
        #expect(pipe.drain() == "expensed: 2025-12-01T23:59:59Z connection 1 from 127.0.0.1: push to ledger 'default' by x: 1 applied\n")
        buffer.append("second", secondsSince1970: Self.seconds + 1)
        #expect(pipe.drain() == "expensed: 2025-12-02T00:00:00Z second\n")
    }

    @Test func linesInsideAGroupAreWrittenTogetherWhenItEndsInTheirOrder() throws {
        let pipe = try Pipe()
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd)
        var seenInside: [String] = []
        buffer.coalescingWrites {
            for number in 1...3 {
                buffer.append("push \(number)", secondsSince1970: Self.seconds + number / 2)
                seenInside.append(pipe.drain())
            }
            buffer.coalescingWrites { buffer.append("nested", secondsSince1970: Self.seconds + 2) }
            seenInside.append(pipe.drain())
        }
        #expect(seenInside == ["", "", "", ""], "nothing is written before the group ends")
        #expect(pipe.drain() == """
            expensed: 2025-12-01T23:59:59Z push 1
            expensed: 2025-12-02T00:00:00Z push 2
            expensed: 2025-12-02T00:00:00Z push 3
            expensed: 2025-12-02T00:00:01Z nested

            """)
        buffer.append("after", secondsSince1970: Self.seconds)
        #expect(pipe.drain() == "expensed: 2025-12-01T23:59:59Z after\n")
    }

    /// 300 lines of 131 bytes: within a pipe's 64 KiB, which nobody reads while the test writes.
    @Test func aGroupOfManyLinesIsWrittenWhole() throws {
        let pipe = try Pipe()
        let buffer = LogLineBuffer(descriptor: pipe.writeEnd)
        let message = String(repeating: "m", count: 100)
        buffer.coalescingWrites {
            for _ in 0..<300 { buffer.append(message, secondsSince1970: Self.seconds) }
        }
        let lines = pipe.drain().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 301 && lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0 == "expensed: 2025-12-01T23:59:59Z " + message })
    }

    /// The push line's counts, whatever their sizes.
    @Test(arguments: [(0, 0, 0, 0), (1, 0, 0, 0), (9, 10, 11, 99), (100, 1000, 500, 7), (1000, 0, 0, 1000)])
    func theCountsReadAsInterpolated(counts: (Int, Int, Int, Int)) {
        let (applied, duplicate, conflict, rejected) = counts
        var results: [MutationResult] = []
        var mutationId: Int64 = 0
        func add(_ count: Int, _ status: MutationStatus) {
            for _ in 0..<count {
                mutationId += 1
                results.append(MutationResult(mutationId: mutationId, status: status))
            }
        }
        add(applied, .applied(version: 1, seq: 1))
        add(duplicate, .duplicate(original: nil))
        add(rejected, .rejected(MutationRejection(reason: "invalid_amount", field: "amount", message: "no")))
        for index in 0..<conflict {
            add(1, .conflict(current: Record(expense: Expense(id: UUID(), amount: 1, currency: .usd, category: "c",
                                                              date: ExpenseRules.earliestDate, note: ""),
                                             version: Int64(index + 1), seq: 1, deleted: false)))
        }
        let expected = "\(applied) applied, \(duplicate) duplicate, \(conflict) conflict, \(rejected) rejected"
        #expect(RequestDispatcher.counts(PushResult(results: results, cursor: 1)) == expected)
    }
}
