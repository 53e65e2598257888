import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// The size bounds Protocol.md §5.2, §5.3 and §6 state, on the largest encodings a valid expense allows.
@Suite struct EncodedSizeBoundsTests {
    /// A valid expense with the longest encoding: every character of category and note is an escaped `"` carrying
    /// combining marks up to the byte limits (64 characters / 256 bytes, 300 characters / 1,200 bytes).
    static func worstExpense() throws -> Expense {
        let category = (0..<64).map { "\"" + String(repeating: "\u{301}", count: $0 < 32 ? 1 : 2) }.joined()
        let note = (0..<300).map { "\\" + String(repeating: "\u{301}", count: $0 < 150 ? 2 : 1) }.joined()
        #expect(category.utf8.count == 256 && category.count == 64)
        #expect(note.utf8.count == 1200 && note.count == 300)
        return try ExpenseValidator.validate(ExpenseDraft(id: Fixtures.idText, amount: ExpenseRules.maximumAmount, currency: "USD",
                                                          category: category, date: "2026-11-30", note: note))
    }

    @Test("a record is at most 2,100 bytes and a mutation at most 2,100; a push of one at most 2,200")
    func recordAndMutationBounds() throws {
        let expense = try Self.worstExpense()
        let record = Record(expense: expense, version: .max, seq: .max, deleted: false)
        var writer = JSONWriter()
        record.write(to: &writer)
        #expect(writer.bytes.count <= 2_100, "\(writer.bytes.count)")
        var fields = expense.draft
        fields.id = nil
        // As a client sends the expense (PendingMutation): its empty optional fields (no payer, split, amount charged,
        // tags or parts) left out, as a create leaves them.
        let mutation = Mutation(mutationId: .max, type: .put, id: expense.id, baseVersion: .max,
                                fields: ExpenseFields.json(from: fields, omittingEmpty: true))
        #expect(PushRequest.encodedBytes(of: mutation) <= 2_100, "\(PushRequest.encodedBytes(of: mutation))")
        let line = PushRequest(mutations: [mutation]).requestLine(id: RequestID(Int64.max))
        #expect(line.count - 1 <= 2_200)
        #expect(line.count - 1 <= PushRequest.envelopeBytes + PushRequest.encodedBytes(of: mutation))
        // 500 of them fit the default line.
        #expect(PushRequest.envelopeBytes + 500 * PushRequest.encodedBytes(of: mutation) <= 1_048_576)
    }

    @Test("the push size a client computes is never below the line it writes", arguments: [0, 1, 7, 1000])
    func pushEstimateCoversTheLine(count: Int) throws {
        let mutations = (0..<count).map { index in
            Mutation(mutationId: Int64(index + 1), type: index % 3 == 0 ? .delete : .put, id: UUID(), baseVersion: Int64(index),
                     fields: index % 3 == 0 ? nil : ["note": .string(String(repeating: "é\"\n", count: index % 50))])
        }
        let estimate = PushRequest.envelopeBytes + mutations.reduce(0) { $0 + PushRequest.encodedBytes(of: $1) }
        let line = PushRequest(mutations: mutations).requestLine(id: RequestID(Int64(count + 1)))
        #expect(line.count - 1 <= estimate)
        #expect(estimate - (line.count - 1) <= 20 + count)
    }

    @Test("a page is cut before the record that would pass the line limit; it keeps at least one record",
          arguments: [100, 600, 1_000, 4_096, 1_048_576])
    func pageCut(limit: Int) throws {
        let records = try (1...12).map { index in
            Record(expense: try Fixtures.expense(amount: Int64(index), note: String(repeating: "n", count: 20 * index)),
                   version: 1, seq: Int64(index * 2), deleted: false)
        }
        let page = PullResult(changes: records, cursor: 30, more: false)
        let line = page.responseLine(id: RequestID(7), maximumLineLength: limit)
        let (id, decoded) = try #require(PullPageDecoder.decode(Array(line.dropLast())))
        #expect(id == RequestID(7) && line.last == 0x0A)
        #expect(decoded.changes.count >= 1)
        #expect(line.count - 1 <= limit || decoded.changes.count == 1)
        #expect(Array(decoded.changes) == Array(records.prefix(decoded.changes.count)))
        if decoded.changes.count < records.count {
            #expect(decoded.more && decoded.cursor == decoded.changes.last?.seq)
            // The next record would not have fitted (the cut reserves the longest tail a page can have).
            let longer = PullResult(changes: Array(records.prefix(decoded.changes.count + 1)), cursor: 0, more: true)
            #expect(RPCResponse.success(id: RequestID(7), result: longer).count - 1 + PullResult.maximumTailBytes > limit)
        } else {
            #expect(line == RPCResponse.success(id: RequestID(7), result: page))
        }
    }

    @Test("a record the daemon stored before the byte limits is still read, on both decoding paths")
    func legacyRecordIsRead() throws {
        let note = String(repeating: "🇯🇵", count: 300)  // 2,400 bytes
        let recordJSON = Fixtures.recordJSON.replacingOccurrences(of: #""note":"lunch""#, with: #""note":"\#(note)""#)
        let line = Array(#"{"jsonrpc":"2.0","id":3,"result":{"changes":[\#(recordJSON)],"cursor":17,"more":false}}"#.utf8)
        let (_, fast) = try #require(PullPageDecoder.decode(line))
        #expect(fast.changes.first?.expense.note == note)
        let general = try Record(json: try JSONParser.parse(Array(recordJSON.utf8)))
        #expect(general.expense.note == note)
    }
}

extension EncodedSizeBoundsTests {
    /// Sixteen parts of the longest categories, each a distinct escaped `"` with combining marks up to 256 bytes,
    /// and amounts of 15 digits: the most `parts` can add (Protocol.md §5.2, at most 5,500 bytes).
    @Test("parts add at most 5,500 bytes to a mutation and to a record")
    func partsBound() throws {
        let plain = try Self.worstExpense()
        let parts = (0..<16).map { index in
            // A different first mark per part (U+0310 …), so no category repeats nor is the expense's own.
            let first = String(Character(Unicode.Scalar(0x0310 + UInt32(index)) ?? "\u{301}"))
            let category = (0..<64).map { position in
                "\"" + (position == 0 ? first : String(repeating: "\u{301}", count: position < 32 ? 1 : 2))
            }.joined()
            return "\(ExpenseRules.maximumAmount / 17):\(category)"
        }.joined(separator: "\n")
        var draft = plain.draft
        draft.parts = parts
        let expense = try ExpenseValidator.validate(draft)
        #expect(expense.parts?.parts.count == 16 && expense.parts?.parts.allSatisfy { $0.category.utf8.count == 256 } == true)
        func mutationBytes(_ expense: Expense) -> Int {
            var fields = expense.draft
            fields.id = nil
            return PushRequest.encodedBytes(of: Mutation(mutationId: .max, type: .put, id: expense.id, baseVersion: .max,
                                                         fields: ExpenseFields.json(from: fields)))
        }
        func recordBytes(_ expense: Expense) -> Int {
            var writer = JSONWriter()
            Record(expense: expense, version: .max, seq: .max, deleted: false).write(to: &writer)
            return writer.bytes.count
        }
        #expect(mutationBytes(expense) - mutationBytes(plain) <= 5_500, "\(mutationBytes(expense) - mutationBytes(plain))")
        #expect(recordBytes(expense) - recordBytes(plain) <= 5_500, "\(recordBytes(expense) - recordBytes(plain))")
    }
}

extension EncodedSizeBoundsTests {
    /// The longest original text is the longest note (the same rule): it adds at most what that note takes, with
    /// its member's name (Protocol.md §5.2, at most 1,520 bytes).
    @Test("an original text adds at most 1,520 bytes to a mutation and to a record")
    func sourceBound() throws {
        let plain = try Self.worstExpense()
        var draft = plain.draft
        draft.source = plain.note
        let expense = try ExpenseValidator.validate(draft)
        func mutationBytes(_ expense: Expense) -> Int {
            var fields = expense.draft
            fields.id = nil
            return PushRequest.encodedBytes(of: Mutation(mutationId: .max, type: .put, id: expense.id, baseVersion: .max,
                                                         fields: ExpenseFields.json(from: fields, omittingEmpty: true)))
        }
        func recordBytes(_ expense: Expense) -> Int {
            var writer = JSONWriter()
            Record(expense: expense, version: .max, seq: .max, deleted: false).write(to: &writer)
            return writer.bytes.count
        }
        #expect(mutationBytes(expense) - mutationBytes(plain) <= 1_520, "\(mutationBytes(expense) - mutationBytes(plain))")
        #expect(recordBytes(expense) - recordBytes(plain) <= 1_520, "\(recordBytes(expense) - recordBytes(plain))")
    }
}
