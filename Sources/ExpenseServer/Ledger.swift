import ExpenseCore
import ExpenseProtocol
import Foundation

public actor Ledger {
    /// At most this many mutations in one push.
    public static let maximumPushSize = 1000
    /// `pull`'s largest `limit`.
    public static let maximumPullLimit = 10_000
    public nonisolated let name: String
    public nonisolated let currency: Currency
    init(name: String, currency: Currency) { self.name = name; self.currency = currency }
}
