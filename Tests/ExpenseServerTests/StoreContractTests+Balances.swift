import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// `balances` (Protocol.md §5.11) against every store: the daemon's figures are the core's ``Balances`` over the
/// ledger's live records as a client pulls them, and each store's one read of its shared records
/// (``LedgerStore/records(_:)``) is exactly what paging through every change from 0 gives.
@Suite(.offTheCooperativePool) struct StoreBalancesContractTests {
    private static func member(_ name: String) -> [String: JSONValue] { ["name": .string(name), "status": "active"] }

    private static func shared(_ amount: Int64, currency: String = "USD", payer: UUID?, split: SplitSpec?) -> [String: JSONValue] {
        var values = fields(amount: amount, currency: currency, category: "food", date: "2026-11-01")
        if let payer { values["paidBy"] = .string(UUIDText.lowercased(payer)) }
        if let split { values["split"] = .string(split.text) }
        return values
    }

    private static func transfer(_ from: UUID, _ to: UUID, _ amount: Int64, currency: String = "USD") -> [String: JSONValue] {
        ["from": .string(UUIDText.lowercased(from)), "to": .string(UUIDText.lowercased(to)), "amount": .number(JSONNumber(amount)),
         "currency": .string(currency), "date": "2026-11-05"]
    }

    private static func equal(_ members: [UUID]) throws -> SplitSpec {
        try SplitSpec(method: .equal, parts: members.map { SplitSpec.Part(member: $0, weight: 1) })
    }

    /// The general path: every change from 0, a page at a time, the latest of each id, tombstones left out.
    private static func pulledSharedRecords(_ engine: LedgerEngine) throws -> (expenses: [Expense], transfers: [DataRecord]) {
        var expenses: [UUID: Record] = [:], data: [UUID: DataRecord] = [:]
        var cursor: Int64 = 0
        while true {
            let page = try engine.pull(PullRequest(since: cursor, limit: 3, kinds: Set(RecordKind.allCases.filter { $0 != .expense })))
            for record in page.changes where record.seq > (expenses[record.expense.id]?.seq ?? 0) { expenses[record.expense.id] = record }
            for record in page.dataChanges where record.seq > (data[record.id]?.seq ?? 0) { data[record.id] = record }
            cursor = page.cursor
            if !page.more { break }
        }
        return (expenses.values.filter { !$0.deleted && $0.expense.paidBy != nil && $0.expense.split != nil }.map(\.expense),
                data.values.filter { !$0.deleted && $0.kind == .transfer })
    }

    /// The core's balances over those records, as a client computes them from its copy.
    private static func coreBalances(_ records: (expenses: [Expense], transfers: [DataRecord]), currency: Currency?) throws -> Balances {
        let transfers = try records.transfers.map { try LedgerDataValidator.transfer(id: $0.id, fields: $0.fields) }
        return try Balances(records.expenses.compactMap(BalanceEntry.init(sharedExpense:)).filter { currency == nil || $0.currency == currency }
                            + transfers.filter { currency == nil || $0.currency == currency }.map(\.balanceEntry))
    }

    @Test("the daemon's balances are the core's over the live records a client pulls: edits, deletes, transfers, other kinds",
          arguments: LedgerStoreKind.allCases)
    func balancesAreTheCoresOverTheSameRecords(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        let engine = ledger.engine
        var client = EngineClient(engine)
        let ann = UUID(), bob = UUID(), carol = UUID()
        for (id, name) in [(ann, "ann"), (bob, "bob"), (carol, "carol")] {
            #expect(try client.push { kindItem($0, .member, id, base: 0, Self.member(name)) }.isApplied)
        }
        let all = try Self.equal([ann, bob, carol])
        let edited = UUID(), deleted = UUID(), refunded = UUID(), dropped = UUID()
        #expect(try client.put(UUID(), base: 0, Self.shared(10_000, payer: ann, split: all)).isApplied)
        #expect(try client.put(edited, base: 0, Self.shared(9_000, payer: bob, split: try SplitSpec(method: .shares, parts: [
            SplitSpec.Part(member: ann, weight: 2), SplitSpec.Part(member: bob, weight: 1)]))).isApplied)
        #expect(try client.put(edited, base: 1, fields(amount: 9_001)).isApplied)          // the latest version counts
        #expect(try client.put(deleted, base: 0, Self.shared(5_000, payer: carol, split: all)).isApplied)
        #expect(try client.delete(deleted, base: 1).isApplied)                              // a tombstone does not
        #expect(try client.put(UUID(), base: 0, Self.shared(1_000, currency: "JPY", payer: carol, split: all)).isApplied)
        #expect(try client.put(UUID(), base: 0, Self.shared(700, currency: "EUR", payer: ann, split: try Self.equal([bob]))).isApplied)
        #expect(try client.put(UUID(), base: 0, Self.shared(300, payer: bob, split: nil)).isApplied)   // not shared
        #expect(try client.put(UUID(), base: 0, lunch()).isApplied)
        #expect(try client.push { kindItem($0, .transfer, refunded, base: 0, Self.transfer(bob, ann, 2_500)) }.isApplied)
        #expect(try client.push { kindItem($0, .transfer, dropped, base: 0, Self.transfer(carol, ann, 99, currency: "EUR")) }.isApplied)
        #expect(try client.push { kindItem($0, .transfer, dropped, base: 1, nil, type: .delete) }.isApplied)
        let food = try budgetId()
        #expect(try client.push { kindItem($0, .budget, food, base: 0, budgetFields()) }.isApplied)

        let pulled = try Self.pulledSharedRecords(engine)
        let read = try engine.store.records(.balances)
        #expect(Set(read.expenses) == Set(pulled.expenses) && read.expenses.count == 4)
        #expect(Set(read.data) == Set(pulled.transfers) && read.data.map(\.id) == [refunded])
        #expect(read.head == engine.store.head)

        let answer = try engine.balances(currency: nil)
        #expect(answer == BalancesResult(try Self.coreBalances(pulled, currency: nil), currency: nil, cursor: engine.store.head))
        #expect(answer.balances.map(\.currency.code) == ["EUR", "EUR", "JPY", "JPY", "JPY", "USD", "USD", "USD"])
        for code in ["EUR", "JPY", "USD"] {
            #expect(answer.balances.filter { $0.currency.code == code }.reduce(0) { $0 + $1.balance.net } == 0, "\(code)")
        }
        // Figures worked by hand, in USD: ann paid 100.00 shared by three (33.33 or 33.34 each), bob 90.01 shared two
        // (ann: 60.00 or 60.01) to one, and bob paid ann back 25.00 (all ann's share).
        let usd = answer.balances.filter { $0.currency == .usd }.map(\.balance)
        #expect(usd.map(\.paid).sorted() == [0, 10_000, 11_501])
        let annUSD = try #require(usd.first { $0.member == ann })
        #expect(annUSD.paid == 10_000 && (11_833...11_835).contains(annUSD.share))
        let euro = try #require(Currency(code: "EUR"))
        let euros = try engine.balances(currency: euro)
        #expect(euros == BalancesResult(try Self.coreBalances(pulled, currency: euro), currency: euro, cursor: engine.store.head))
        #expect(euros.balances.first { $0.balance.member == ann }?.balance.net == 700)
        #expect(euros.balances.first { $0.balance.member == bob }?.balance.net == -700)
        let pound = try #require(Currency(code: "GBP"))
        #expect(try engine.balances(currency: pound).balances.isEmpty)
    }

    @Test("an empty ledger has no balances, at its head", arguments: LedgerStoreKind.allCases)
    func emptyLedger(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        _ = try client.put(UUID(), base: 0, lunch())
        #expect(try ledger.engine.balances(currency: nil) == BalancesResult(balances: [], cursor: 1))
    }

    @Test("a member's total that does not fit in 64 bits is amount_overflow, never a wrong number; another currency still answers",
          arguments: LedgerStoreKind.allCases)
    func overflowIsAnError(kind: LedgerStoreKind) throws {
        let ledger = try TestLedger(kind)
        var client = EngineClient(ledger.engine)
        let ann = UUID(), bob = UUID()
        _ = try client.push { kindItem($0, .member, ann, base: 0, Self.member("ann")) }
        _ = try client.push { kindItem($0, .member, bob, base: 0, Self.member("bob")) }
        #expect(try client.put(UUID(), base: 0, Self.shared(700, currency: "EUR", payer: ann, split: try Self.equal([bob]))).isApplied)
        // Transfers are not in the overflow check of expense totals (Protocol.md §7.5): 1025 of the maximum overflow.
        for batch in [0..<1000, 1000..<1025] {
            let items = batch.map { index in
                kindItem(client.next + Int64(index - batch.lowerBound), .transfer, UUID(), base: 0,
                         Self.transfer(ann, bob, ExpenseRules.maximumAmount))
            }
            client.next += Int64(items.count)
            #expect(try ledger.engine.push(clientId: client.clientId, items: items).results.allSatisfy(\.status.isApplied))
        }
        #expect(throws: RPCError(code: RPCError.internalErrorCode, message: SplitError.amountOverflow.message, reason: "amount_overflow")) {
            try ledger.engine.balances(currency: nil)
        }
        let euro = try #require(Currency(code: "EUR"))
        #expect(try ledger.engine.balances(currency: euro).balances.count == 2)
    }
}
