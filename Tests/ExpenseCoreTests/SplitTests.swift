@testable import ExpenseCore
import Foundation
import Testing
import TestSupport

/// The id whose 16 bytes are all zero but the last, `n`: ids sort as their numbers do.
func memberId(_ n: UInt8) -> UUID {
    UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n))
}

/// An id of 16 random bytes from `generator`.
func randomId(_ generator: inout SeededGenerator) -> UUID {
    withUnsafeBytes(of: (generator.next(), generator.next())) { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
}

/// Expects `body` to throw a ``SplitError`` with this code; returns it for a closer look.
@discardableResult
func expectSplitError<T>(
    _ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(SplitError) -> T
) -> SplitError? {
    do {
        _ = try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}

@Suite("SplitSpec: shares, canonical text, typed splits")
struct SplitTests {
    static let kwd = TestCurrency.named("KWD")
    static let (alice, bob, carol, dave, erin) = (memberId(1), memberId(2), memberId(3), memberId(4), memberId(5))

    static func equal(_ ids: [UUID]) throws -> SplitSpec {
        try SplitSpec(method: .equal, parts: ids.map { SplitSpec.Part(member: $0, weight: 1) })
    }

    // MARK: - Examples

    @Test("an odd minor unit goes to exactly one member, in currencies of 0, 2 and 3 decimals", arguments: [
        ("JPY", 1000 as Int64, [334, 333, 333] as [Int64]),
        ("USD", 10000, [3334, 3333, 3333]),
        ("KWD", 1000, [334, 333, 333]),
        ("BHD", 10000, [3334, 3333, 3333]),
        ("USD", 2, [1, 1, 0]),
    ])
    func equalThree(code: String, amount: Int64, expected: [Int64]) throws {
        let spec = try Self.equal([Self.alice, Self.bob, Self.carol])
        let shares = try spec.shares(amount: amount, currency: TestCurrency.named(code), expenseId: memberId(0))
        #expect(shares.map(\.member) == [Self.alice, Self.bob, Self.carol])
        #expect(shares.map(\.amount) == expected)  // the expense id ends in 0: the rotation starts at alice
    }

    @Test("one minor unit among four: exactly one member gets it, the others 0")
    func oneAmongFour() throws {
        let spec = try Self.equal([Self.alice, Self.bob, Self.carol, Self.dave])
        for last in UInt8(0)..<8 {
            let shares = try spec.shares(amount: 1, currency: .usd, expenseId: memberId(last))
            #expect(shares.map(\.amount).sorted() == [0, 0, 0, 1])
            #expect(shares[Int(last) % 4].amount == 1)
        }
    }

    @Test("equal remainders: the rotation starts at the expense id (16 bytes, big-endian) modulo the member count")
    func rotation() throws {
        let spec = try Self.equal([Self.carol, Self.alice, Self.bob])  // typed order does not matter
        for (last, winner) in [(0, Self.alice), (1, Self.bob), (2, Self.carol), (3, Self.alice), (5, Self.carol)] as [(UInt8, UUID)] {
            let shares = try spec.shares(amount: 1000, currency: TestCurrency.jpy, expenseId: memberId(last))
            #expect(shares.first { $0.amount == 334 }?.member == winner, "expense …\(last)")
        }
        // Two units left over among three: the member at the start and the next one, wrapping past the end.
        let two = try spec.shares(amount: 1001, currency: TestCurrency.jpy, expenseId: memberId(2))
        #expect(two.map(\.amount) == [334, 333, 334])
        // The whole id counts, not just its last byte: 2^64 mod 3 = 1.
        let high = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0))
        #expect(try spec.shares(amount: 1000, currency: TestCurrency.jpy, expenseId: high).map(\.amount) == [333, 334, 333])
    }

    @Test("a larger remainder wins over the rotation")
    func largestRemainderFirst() throws {
        let spec = try SplitSpec(method: .shares, parts: [.init(member: Self.alice, weight: 2), .init(member: Self.bob, weight: 1)])
        for last in UInt8(0)..<4 {
            // 100 × 2 / 3 = 66 rem 2, 100 × 1 / 3 = 33 rem 1: alice's remainder is larger.
            #expect(try spec.shares(amount: 100, currency: .usd, expenseId: memberId(last)).map(\.amount) == [67, 33])
        }
        let percent = try SplitSpec(method: .percent, parts: [.init(member: Self.alice, weight: 3333), .init(member: Self.bob, weight: 3333),
                                                           .init(member: Self.carol, weight: 3334)])
        // 1 unit: remainders 3333, 3333, 3334; carol's is the largest.
        #expect(try percent.shares(amount: 1, currency: .usd, expenseId: memberId(0)).map(\.amount) == [0, 0, 1])
    }

    @Test("exact shares are the weights; a sum that misses says by how much")
    func exact() throws {
        let spec = try SplitSpec(method: .exact, parts: [.init(member: Self.bob, weight: 750), .init(member: Self.alice, weight: 1250)])
        #expect(try spec.shares(amount: 2000, currency: .usd, expenseId: memberId(9)).map(\.amount) == [1250, 750])
        let short = expectSplitError("invalid_split") { () throws(SplitError) in try spec.validate(amount: 2100, currency: .usd) }
        #expect(short?.message == "invalid split: the exact amounts add up to 20.00, 1.00 short of 21.00; make them add up to the expense's amount")
        let over = expectSplitError("invalid_split") { () throws(SplitError) in
            try spec.shares(amount: 1900, currency: .usd, expenseId: memberId(9))
        }
        #expect(over?.message.contains("add up to 20.00, 1.00 more than 19.00") == true)
        let yen = expectSplitError("invalid_split") { () throws(SplitError) in try spec.validate(amount: 1999, currency: TestCurrency.jpy) }
        #expect(yen?.message.contains("add up to 2000, 1 more than 1999") == true)
        try spec.validate(amount: 2000, currency: .usd)
    }

    @Test("the amount to split must be 1 … 2^53−1 minor units", arguments: [0, -1, Int64.min, ExpenseRules.maximumAmount + 1, Int64.max])
    func amountRange(amount: Int64) throws {
        let spec = try Self.equal([Self.alice])
        expectSplitError("invalid_split") { () throws(SplitError) in try spec.shares(amount: amount, currency: .usd, expenseId: memberId(0)) }
    }

    @Test("the largest amount among 50 members with the largest shares does not overflow")
    func largest() throws {
        var generator = SeededGenerator(seed: 50)
        let parts = (0..<50).map { _ in SplitSpec.Part(member: randomId(&generator), weight: SplitSpec.maximumShares) }
        let spec = try SplitSpec(method: .shares, parts: parts)
        let shares = try spec.shares(amount: ExpenseRules.maximumAmount, currency: .usd, expenseId: randomId(&generator))
        #expect(shares.reduce(Int128(0)) { $0 + Int128($1.amount) } == Int128(ExpenseRules.maximumAmount))
    }

    // MARK: - Building a split

    @Test("parts are sorted by member id, whatever order they come in")
    func sorted() throws {
        var generator = SeededGenerator(seed: 11)
        let ids = (0..<20).map { _ in randomId(&generator) }
        let spec = try Self.equal(ids)
        #expect(spec.parts.map { UUIDText.lowercased($0.member) } == ids.map { UUIDText.lowercased($0) }.sorted())
        #expect(try Self.equal(ids.shuffled(using: &generator)) == spec)
    }

    static let refusedPartsCases: [(SplitSpec.Method, [(UInt8, Int64)], String)] = [
        (.equal, [], "invalid_split"),
        (.equal, [(1, 1), (2, 1), (1, 1)], "duplicate_member"),
        (.equal, [(1, 2)], "invalid_share"),
        (.shares, [(1, 0)], "invalid_share"),
        (.shares, [(1, -1)], "invalid_share"),
        (.shares, [(1, 1_000_001)], "invalid_share"),
        (.percent, [(1, 5000), (2, 4999)], "invalid_split"),
        (.percent, [(1, 10001), (2, -1)], "invalid_share"),
        (.percent, [(1, 0), (2, 10000)], "invalid_share"),
        (.exact, [(1, 0)], "invalid_share"),
        (.exact, [(1, ExpenseRules.maximumAmount + 1)], "invalid_share"),
    ]

    @Test("refused parts", arguments: refusedPartsCases)
    func refusedParts(method: SplitSpec.Method, parts: [(UInt8, Int64)], code: String) {
        expectSplitError(code) { () throws(SplitError) in
            try SplitSpec(method: method, parts: parts.map { SplitSpec.Part(member: memberId($0.0), weight: $0.1) })
        }
    }

    @Test("at most 50 members")
    func fifty() throws {
        let parts = (1...51).map { SplitSpec.Part(member: memberId(UInt8($0)), weight: 1) }
        #expect(try SplitSpec(method: .equal, parts: Array(parts.prefix(50))).parts.count == 50)
        let error = expectSplitError("too_many_members") { () throws(SplitError) in try SplitSpec(method: .equal, parts: parts) }
        #expect(error?.message == "the split has 51 members; a split has at most 50")
    }

    @Test("percentages that miss 100% say by how much")
    func percentMessage() {
        let short = expectSplitError("invalid_split") { () throws(SplitError) in
            try SplitSpec(method: .percent, parts: [.init(member: Self.alice, weight: 5000), .init(member: Self.bob, weight: 4000)])
        }
        #expect(short?.message == "invalid split: the percentages add up to 90%, 10% short of 100%; make them add up to exactly 100%")
        let over = expectSplitError("invalid_split") { () throws(SplitError) in
            try SplitSpec(method: .percent, parts: [.init(member: Self.alice, weight: 5050), .init(member: Self.bob, weight: 5005)])
        }
        #expect(over?.message.contains("add up to 100.55%, 0.55% more than 100%") == true)
        #expect(SplitSpec.percentText(3333) == "33.33%" && SplitSpec.percentText(3350) == "33.5%" && SplitSpec.percentText(5) == "0.05%")
    }

    // MARK: - Canonical text

    @Test("the canonical text of each method")
    func canonicalText() throws {
        let a = "00000000-0000-0000-0000-000000000001", b = "00000000-0000-0000-0000-000000000002"
        let c = "00000000-0000-0000-0000-000000000003"
        #expect(try Self.equal([Self.carol, Self.alice, Self.bob]).text == "equal:\(a),\(b),\(c)")
        let shares = try SplitSpec(method: .shares, parts: [.init(member: Self.bob, weight: 1), .init(member: Self.alice, weight: 2)])
        #expect(shares.text == "shares:\(a)=2,\(b)=1")
        #expect(try SplitSpec(text: "percent:\(a)=5000,\(b)=3000,\(c)=2000").parts.map(\.weight) == [5000, 3000, 2000])
        #expect(try SplitSpec(text: "exact:\(a)=1250,\(b)=750").text == "exact:\(a)=1250,\(b)=750")
        let upper = "ABCDEF00-0000-0000-0000-000000000000"
        let spec = try Self.equal([try #require(UUID(uuidString: upper))])
        #expect(spec.text == "equal:" + upper.lowercased())
    }

    static let a = "00000000-0000-0000-0000-000000000001", b = "00000000-0000-0000-0000-000000000002"

    @Test("the canonical text is read strictly", arguments: [
        ("", "invalid_split"), ("equal", "invalid_split"), ("equal:", "invalid_split"), ("Equal:\(a)", "invalid_split"),
        ("split:\(a)", "invalid_split"), (" equal:\(a)", "invalid_split"), ("equal: \(a)", "invalid_split"),
        ("equal:\(a),", "invalid_split"), ("equal:\(a),,\(b)", "invalid_split"), ("equal:\(a), \(b)", "invalid_split"),
        ("equal:ABCDEF00-0000-0000-0000-000000000000", "invalid_split"), ("equal:\(b),\(a)", "invalid_split"), ("equal:\(a)=1", "invalid_split"),
        ("equal:{\(a)}", "invalid_split"), ("equal:\(a),\(a)", "duplicate_member"), ("equal:\(a),\(b),\(a)", "duplicate_member"),
        ("shares:\(a)", "invalid_split"), ("shares:\(a)=", "invalid_split"), ("shares:\(a)=02", "invalid_split"),
        ("shares:\(a)=+2", "invalid_split"), ("shares:\(a)=-2", "invalid_split"), ("shares:\(a)=2.0", "invalid_split"),
        ("shares:\(a)=2 ", "invalid_split"), ("shares:\(a)=0", "invalid_share"), ("shares:\(a)=1000001", "invalid_share"),
        ("shares:\(a)=99999999999999999999", "invalid_share"), ("shares:\(a)==2", "invalid_split"),
        ("percent:\(a)=5000,\(b)=4999", "invalid_split"), ("percent:\(a)=50%,\(b)=50%", "invalid_split"),
        ("exact:\(a)=0", "invalid_share"), ("exact:\(a)=12.50", "invalid_split"),
    ])
    func strictText(text: String, code: String) {
        expectSplitError(code) { () throws(SplitError) in try SplitSpec(text: text) }
    }

    @Test("more than 50 members in the text is too_many_members")
    func fiftyInText() throws {
        let ids = (1...51).map { UUIDText.lowercased(memberId(UInt8($0))) }
        #expect(try SplitSpec(text: "equal:" + ids.prefix(50).joined(separator: ",")).parts.count == 50)
        expectSplitError("too_many_members") { () throws(SplitError) in try SplitSpec(text: "equal:" + ids.joined(separator: ",")) }
    }

    // MARK: - Properties

    /// A random composition of `total` into `count` parts of at least 1 each (`count` ≤ `total`).
    static func composition(_ total: Int64, into count: Int, _ generator: inout SeededGenerator) -> [Int64] {
        var cuts = Set<Int64>()
        while cuts.count < count - 1 { cuts.insert(Int64.random(in: 1..<total, using: &generator)) }
        let sorted = [0] + cuts.sorted() + [total]
        return zip(sorted, sorted.dropFirst()).map { $1 - $0 }
    }

    /// A random split of `amount` among 1–50 random members (fewer for an exact split of a small amount).
    static func randomSpec(amount: Int64, _ generator: inout SeededGenerator) throws -> SplitSpec {
        let method = SplitSpec.Method.allCases.randomElement(using: &generator) ?? .equal
        var count = Bool.random(using: &generator) ? Int.random(in: 1...5, using: &generator) : Int.random(in: 1...50, using: &generator)
        if method == .exact { count = min(count, Int(amount)) }
        let ids = (0..<count).map { _ in randomId(&generator) }
        let weights: [Int64]
        switch method {
        case .equal: weights = Array(repeating: 1, count: count)
        case .shares:
            // Small shares make equal remainders (the rotation's case) common; large ones test the range.
            let top: Int64 = Bool.random(using: &generator) ? 3 : SplitSpec.maximumShares
            weights = (0..<count).map { _ in Int64.random(in: 1...top, using: &generator) }
        case .percent: weights = composition(SplitSpec.percentTotal, into: count, &generator)
        case .exact: weights = composition(amount, into: count, &generator)
        }
        return try SplitSpec(method: method, parts: zip(ids, weights).map { SplitSpec.Part(member: $0, weight: $1) })
    }

    @Test("random splits: shares add up to the amount, each within one minor unit of exact, independent of part order, text round-trips")
    func properties() throws {
        var generator = SeededGenerator(seed: 0x5917)
        let currencies = [TestCurrency.jpy, .usd, Self.kwd]
        // One #expect per property and iteration, and only a Bool per check inside: recorded expectations cost
        // debug builds far more than the arithmetic they check.
        for iteration in 0..<600 {
            let amount = Bool.random(using: &generator)
                ? Int64.random(in: 1...10, using: &generator) : Int64.random(in: 1...1_000_000_000_000, using: &generator)
            let currency = currencies[iteration % 3]
            let spec = try Self.randomSpec(amount: amount, &generator)
            let expenseId = randomId(&generator)
            let shares = try spec.shares(amount: amount, currency: currency, expenseId: expenseId)
            let total = spec.parts.reduce(Int128(0)) { $0 + Int128($1.weight) }
            let sum = shares.reduce(Int128(0)) { $0 + Int128($1.amount) }
            let withinOne = zip(spec.parts, shares).allSatisfy { part, share in
                share.amount >= 0 && (Int128(share.amount) * total - Int128(amount) * Int128(part.weight)).magnitude < total.magnitude
            }
            let shuffled = try SplitSpec(method: spec.method, parts: spec.parts.shuffled(using: &generator))
            let sameWhateverTheOrder = try shuffled == spec && shuffled.shares(amount: amount, currency: currency, expenseId: expenseId) == shares
            let roundTrips = try SplitSpec(text: spec.text) == spec
            #expect(shares.map(\.member) == spec.parts.map(\.member) && sum == Int128(amount), "iteration \(iteration), \(amount) \(currency.code), \(spec.text)")
            #expect(withinOne, "iteration \(iteration), \(amount) \(currency.code), \(spec.text)")
            #expect(sameWhateverTheOrder, "iteration \(iteration), \(amount) \(currency.code), \(spec.text)")
            #expect(roundTrips, "iteration \(iteration), \(amount) \(currency.code), \(spec.text)")
        }
    }

    @Test("over many expenses an equal split's odd unit falls on every member about as often")
    func fairOverExpenses() throws {
        var generator = SeededGenerator(seed: 3)
        let spec = try Self.equal([Self.alice, Self.bob, Self.carol])
        var extra: [UUID: Int] = [:]
        for _ in 0..<300 {
            let shares = try spec.shares(amount: 100, currency: .usd, expenseId: randomId(&generator))
            for share in shares where share.amount == 34 { extra[share.member, default: 0] += 1 }
        }
        #expect(extra.values.reduce(0, +) == 300 && extra.values.allSatisfy { (70...130).contains($0) }, "\(extra)")
    }

    // MARK: - What a person types

    static let names: [String: UUID] = ["alice": alice, "bob": bob, "carol": carol, "erin": erin]

    static func typed(_ text: String, _ currency: Currency = .usd, everyone: [UUID] = [alice, bob, carol]) throws(SplitError) -> SplitSpec {
        try SplitSpec.parse(text, currency: currency, member: { (name: String) throws(SplitError) -> UUID in
            if name == "dave" { throw SplitError.memberLeft(name) }
            guard let id = names[name] else { throw SplitError.unknownMember(name) }
            return id
        }, everyone: { () throws(SplitError) -> [UUID] in everyone })
    }

    @Test("typed splits in each form", arguments: [
        ("alice,bob,carol", "USD", SplitSpec.Method.equal, [1, 1, 1] as [Int64]),
        ("  carol , alice,bob ", "USD", .equal, [1, 1, 1]),
        ("all", "USD", .equal, [1, 1, 1]),
        (" equal: all", "USD", .equal, [1, 1, 1]),
        ("equal:alice,bob,carol", "USD", .equal, [1, 1, 1]),
        ("alice=2,bob=1,carol=1", "USD", .shares, [2, 1, 1]),
        ("shares:alice=2,bob=1,carol=1", "JPY", .shares, [2, 1, 1]),
        ("alice=50%,bob=30%,carol=20%", "USD", .percent, [5000, 3000, 2000]),
        ("bob = 33.33% , alice=33.33%,carol=33.34%", "USD", .percent, [3333, 3333, 3334]),
        ("percent:alice=50,bob=25%,carol=25", "USD", .percent, [5000, 2500, 2500]),
        ("alice=12.50,bob=5,carol=0.01", "USD", .exact, [1250, 500, 1]),
        ("exact:alice=1000,bob=500,carol=1", "JPY", .exact, [1000, 500, 1]),
        ("alice=1.250,bob=0.5,carol=2", "KWD", .exact, [1250, 500, 2000]),
        ("exact:alice=12,bob=1,carol=2.5", "USD", .exact, [1200, 100, 250]),
    ])
    func typedForms(text: String, code: String, method: SplitSpec.Method, weights: [Int64]) throws {
        let spec = try Self.typed(text, TestCurrency.named(code))
        #expect(spec.method == method)
        #expect(spec.parts.map(\.member) == [Self.alice, Self.bob, Self.carol])
        #expect(spec.parts.map(\.weight) == weights)
    }

    @Test("`alice=2` is shares, never an amount of 2.00, until a value has a decimal point")
    func sharesOrAmounts() throws {
        #expect(try Self.typed("alice=2,bob=1").method == .shares)
        #expect(try Self.typed("alice=2.00,bob=1").parts.map(\.weight) == [200, 100])
        #expect(try Self.typed("alice=1000,bob=500", TestCurrency.jpy).method == .shares)
        expectSplitError("invalid_split") { () throws(SplitError) in try Self.typed("alice=1000.,bob=500", TestCurrency.jpy) }
    }

    @Test("typed splits refused, each with its code", arguments: [
        ("", "invalid_split"), ("   ", "invalid_split"), ("alice,,bob", "invalid_split"), ("alice,", "invalid_split"),
        ("=2,bob=1", "invalid_split"), ("alice=,bob=1", "invalid_split"), ("alice=2,bob", "invalid_split"),
        ("alice=50%,bob=1", "invalid_split"), ("alice=50%,bob=0.5", "invalid_split"), ("alice=abc,bob=1", "invalid_split"),
        ("alice=2x,bob=1", "invalid_split"), ("alice=1e3,bob=1", "invalid_split"), ("alice=12.505,bob=1", "invalid_split"),
        ("alice=.5,bob=1", "invalid_split"), ("alice=5.,bob=1", "invalid_split"), ("alice=33.333%,bob=66.667%", "invalid_split"),
        ("alice=50%,bob=40%", "invalid_split"), ("alice=50%%,bob=50%", "invalid_split"), ("exact:alice,bob", "invalid_split"),
        ("equal:alice=2,bob=1", "invalid_split"), ("shares:all", "invalid_split"), ("shares:alice=2.5,bob=1", "invalid_split"),
        ("shares:alice=50%,bob=1", "invalid_split"), ("exact:alice=50%,bob=1", "invalid_split"), ("alice=1=2,bob=1", "invalid_split"),
        ("alice,eve", "unknown_member"), ("Alice,bob", "unknown_member"), ("alice,dave", "member_left"),
        ("alice,alice", "duplicate_member"), ("alice, bob ,alice", "duplicate_member"), ("alice=1,alice=2", "duplicate_member"),
        ("alice=0,bob=1", "invalid_share"), ("alice=-1,bob=2", "invalid_share"), ("alice=1000001,bob=1", "invalid_share"),
        ("alice=99999999999999999999999,bob=1", "invalid_share"), ("alice=0%,bob=100%", "invalid_share"),
        ("alice=100.01%,bob=-0.01%", "invalid_share"), ("alice=0.00,bob=5.00", "invalid_share"), ("alice=0.0,bob=5", "invalid_share"),
        ("alice=-5.00,bob=5.00", "invalid_share"), ("alice=50%,bob=50%,carol=0%", "invalid_share"),
    ])
    func typedRefused(text: String, code: String) {
        expectSplitError(code) { () throws(SplitError) in try Self.typed(text) }
    }

    @Test("all: equal among everyone; refused with nobody, with a member twice, with more than 50")
    func all() throws {
        #expect(try Self.typed("all", everyone: [Self.bob]).parts.map(\.member) == [Self.bob])
        expectSplitError("invalid_split") { () throws(SplitError) in try Self.typed("all", everyone: []) }
        expectSplitError("duplicate_member") { () throws(SplitError) in try Self.typed("all", everyone: [Self.bob, Self.bob]) }
        let many = (1...51).map { memberId(UInt8($0)) }
        expectSplitError("too_many_members") { () throws(SplitError) in try Self.typed("all", everyone: many) }
    }

    @Test("more than 50 typed names is too_many_members, before any name is looked up")
    func tooManyTyped() {
        let text = Array(repeating: "eve", count: 51).joined(separator: ",")
        expectSplitError("too_many_members") { () throws(SplitError) in try Self.typed(text) }
    }

    @Test("messages name what was wrong and never hold a control character")
    func messages() {
        let unknown = expectSplitError("unknown_member") { () throws(SplitError) in try Self.typed("alice,e\u{1B}[31mve") }
        #expect(unknown?.message == "no member of the ledger is named 'e\\u{1B}[31mve'; see the ledger's members, or add one")
        let left = expectSplitError("member_left") { () throws(SplitError) in try Self.typed("alice,dave") }
        #expect(left?.message == "'dave' has left the ledger and cannot be in a new split")
        let twice = expectSplitError("duplicate_member") { () throws(SplitError) in try Self.typed("alice,bob,alice") }
        #expect(twice?.message == "'alice' is in the split twice; name each member once")
        let amount = expectSplitError("invalid_split") { () throws(SplitError) in try Self.typed("alice=12.5,bob=1", TestCurrency.jpy) }
        #expect(amount?.message.contains("JPY has no minor unit") == true)
        let zero = expectSplitError("invalid_share") { () throws(SplitError) in try Self.typed("alice=0,bob=1") }
        #expect(zero?.message == "invalid share: the share of 'alice' is '0'; shares are whole numbers from 1 to 1,000,000")
        let controls = expectSplitError("invalid_split") { () throws(SplitError) in try Self.typed("alice=\u{7}1,bob=1") }
        #expect(controls.map { !$0.message.unicodeScalars.contains { $0.properties.generalCategory == .control } } == true)
        #expect(SplitError.amountOverflow.description.hasPrefix("amount_overflow: "))
        #expect(SplitError.tooManyMembers(51).code == "too_many_members")
    }
}
