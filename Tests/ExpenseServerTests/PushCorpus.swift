import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

/// A seeded corpus of pushes from three clients over a small pool of ids, reaching every kind of mutation and
/// every answer: creates (valid, malformed, with and without currency and note, NFC and NFD text, control
/// characters, other currencies, amounts past the range and live totals past `Int64.max`), partial and full
/// edits, deletes, restores, `ifAbsent` creates, budgets, malformed entries, replays (duplicates) and gaps.
struct PushCorpus {
    private var random: SeededGenerator
    private let clients = [UUID(), UUID(), UUID()]
    private var next: [Int64] = [1, 1, 1]
    /// Expense ids that the corpus reuses, so mutations meet records in every state.
    private let ids: [UUID]
    private let budget: UUID
    /// How many mutations named each id so far: at least its version, so a base drawn below it often matches.
    private var touched: [UUID: Int64] = [:]
    static let maximumAmount: Int64 = 9_007_199_254_740_991

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        ids = (0..<40).map { _ in UUID() }
        budget = Budget.id(category: "food", currency: .usd)
    }

    /// 120 pushes of 1–40 mutations, and three pushes of ~400 maximal CHF amounts among them (1,024 of those fill
    /// the live total, so the corpus's later CHF amounts overflow).
    mutating func pushes() throws -> [(clientId: UUID, items: [PushItem], who: String?)] {
        var pushes: [(clientId: UUID, items: [PushItem], who: String?)] = []
        for index in 0..<120 {
            if index == 40 || index == 41 || index == 42 {
                let client = 2
                let items = (0..<(index == 42 ? 230 : 400)).map { _ in
                    let mutationId = take(client)
                    return putItem(mutationId, UUID(), base: 0,
                                   fields(amount: Self.maximumAmount, currency: "CHF", category: "max", date: "2026-01-01"))
                }
                pushes.append((clients[client], items, "max"))
                continue
            }
            let client = Int.random(in: 0..<3, using: &random)
            let count = Int.random(in: 1...40, using: &random)
            pushes.append((clients[client], (0..<count).map { _ in item(client: client) }, client == 1 ? nil : "client \(client)"))
        }
        return pushes
    }

    private mutating func take(_ client: Int) -> Int64 {
        defer { next[client] += 1 }
        return next[client]
    }

    private mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    private mutating func item(client: Int) -> PushItem {
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 3, next[client] > 1 {  // a replay: a duplicate
            let old = Int64.random(in: 1..<next[client], using: &random)
            return putItem(old, pick(ids), base: 0, someFields(complete: true))
        }
        if roll < 5 { return putItem(next[client] + 2, pick(ids), base: 0, someFields(complete: true)) }  // a gap
        let mutationId = take(client)
        let id = pick(ids)
        touched[id, default: 0] += 1
        let base = Int64.random(in: 0...max(1, touched[id, default: 0]), using: &random)
        switch roll {
        case ..<8:  // malformed entry
            return PushItem(mutationId: mutationId, decoded: .failure(
                MutationRejection(reason: "invalid_mutation", field: "type", message: "type must be \"put\" or \"delete\"")))
        case ..<12: return deleteItem(mutationId, id, base: base)
        case ..<16:
            let fields = pick([budgetFields(), budgetFields(amount: 70_000), budgetFields(rollover: "full")])
            return kindItem(mutationId, .budget, budget, base: Int64.random(in: 0...2, using: &random), fields)
        case ..<19: return putItem(mutationId, budget, base: 0, someFields(complete: true))  // invalid_id
        case ..<23:
            return kindItem(mutationId, .expense, id, base: 0, someFields(complete: true), ifAbsent: true)
        case ..<38: return putItem(mutationId, UUID(), base: 0, someFields(complete: Bool.random(using: &random)))
        case ..<55: return putItem(mutationId, id, base: 0, someFields(complete: true))
        case ..<70: return putItem(mutationId, id, base: base, someFields(complete: false))
        // An edit or restore that sends the three required fields but not always currency and note: its values
        // are its own only with all five.
        case ..<85: return putItem(mutationId, id, base: base, someFields(complete: true))
        default: return putItem(mutationId, id, base: base, allFiveFields())
        }
    }

    /// A put's fields: mostly valid, often one field malformed; `complete` sends amount, category and date.
    private mutating func someFields(complete: Bool) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        let send = { (probability: Int, random: inout SeededGenerator) in Int.random(in: 0..<100, using: &random) < probability }
        if complete || send(40, &random) { result["amount"] = amount() }
        if send(50, &random) { result["currency"] = currency() }
        if complete || send(40, &random) { result["category"] = category() }
        if complete || send(40, &random) { result["date"] = date() }
        if send(50, &random) { result["note"] = note() }
        if send(3, &random) { result[pick(["colour", "Amount", "notes"])] = "x" }
        return result
    }

    private mutating func allFiveFields() -> [String: JSONValue] {
        ["amount": amount(), "currency": currency(), "category": category(), "date": date(), "note": note()]
    }

    /// Each field's value: valid six times in seven (so puts with several fields often pass), else one of the
    /// ways it can be wrong.
    private mutating func valid() -> Bool { Int.random(in: 0..<7, using: &random) > 0 }

    private mutating func amount() -> JSONValue {
        if valid() { return .number(JSONNumber(Int64.random(in: 1...50_000, using: &random))) }
        return pick([.number(JSONNumber(0)), .number(JSONNumber(-5)), .number(JSONNumber(text: "12.5")),
                     .number(JSONNumber(text: "1e3")), .number(JSONNumber(Self.maximumAmount)),
                     .number(JSONNumber(Self.maximumAmount + 1)), .string("12"), .null])
    }

    private mutating func currency() -> JSONValue {
        if valid() { return pick(["USD", "USD", "EUR", "JPY", "BHD", "CHF"]) }
        return pick(["usd", "XYZ", .number(JSONNumber(840)), .null])
    }

    private mutating func category() -> JSONValue {
        if valid() { return pick(["food", "food", "rent", "caf\u{E9}", "cafe\u{301}", " padded "]) }
        return pick(["", "   ", "a\u{7}b", .string(String(repeating: "k", count: 65)),
                     .string(String(repeating: "\u{1F600}", count: 64)), .number(JSONNumber(3))])
    }

    private mutating func date() -> JSONValue {
        if valid() { return pick(["2026-11-30", "2026-11-30", "2026-01-01", "2025-06-15"]) }
        return pick(["2026-02-30", "1899-12-31", "2026-1-5", .bool(true)])
    }

    private mutating func note() -> JSONValue {
        if valid() { return pick(["", "bench", "tab\tand\nnewline", "caf\u{E9}", "cafe\u{301}"]) }
        return pick(["bell\u{7}", .string(String(repeating: "n", count: 301)), .null])
    }
}
