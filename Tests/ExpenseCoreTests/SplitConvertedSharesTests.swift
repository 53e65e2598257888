@testable import ExpenseCore
import Foundation
import Testing

/// ``SplitSpec/convertedShares(amount:expenseId:)``: a converted amount divided as the original was.
@Suite struct SplitConvertedSharesTests {
    static let (alice, bob, carol) = (memberId(1), memberId(2), memberId(3))

    @Test("an exact split's amounts are weights: 920 divided 300 : 700 is 276 and 644; the units left go by largest remainder")
    func exactIsProportional() throws {
        let split = try SplitSpec(method: .exact, parts: [SplitSpec.Part(member: Self.alice, weight: 300),
                                                          SplitSpec.Part(member: Self.bob, weight: 700)])
        #expect(try split.convertedShares(amount: 920, expenseId: memberId(9)).map(\.amount) == [276, 644])
        // 1001 × 3/10 = 300.3, × 7/10 = 700.7: floors 300 + 700, the unit to bob's larger remainder.
        #expect(try split.convertedShares(amount: 1001, expenseId: memberId(9)).map(\.amount) == [300, 701])
        #expect(try split.convertedShares(amount: 0, expenseId: memberId(9)).map(\.amount) == [0, 0])
        // The largest weights an exact split allows stay exact (products in 128 bits).
        let large = try SplitSpec(method: .exact, parts: [SplitSpec.Part(member: Self.alice, weight: ExpenseRules.maximumAmount - 1),
                                                          SplitSpec.Part(member: Self.bob, weight: 1)])
        #expect(try large.convertedShares(amount: ExpenseRules.maximumAmount, expenseId: memberId(9)).map(\.amount).reduce(0, +)
                == ExpenseRules.maximumAmount)
    }

    @Test("the other methods divide a converted amount exactly as shares(amount:currency:expenseId:) does")
    func otherMethodsAsShares() throws {
        let split = try SplitSpec(method: .shares, parts: [SplitSpec.Part(member: Self.alice, weight: 2),
                                                           SplitSpec.Part(member: Self.bob, weight: 1),
                                                           SplitSpec.Part(member: Self.carol, weight: 1)])
        for amount: Int64 in [1, 625, 9108, 10_001] {
            #expect(try split.convertedShares(amount: amount, expenseId: memberId(7))
                    == split.shares(amount: amount, currency: TestCurrency.named("EUR"), expenseId: memberId(7)))
        }
        #expect(throws: SplitError.self) { try split.convertedShares(amount: -1, expenseId: memberId(7)) }
    }
}
