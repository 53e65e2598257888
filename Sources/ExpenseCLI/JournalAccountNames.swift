import ExpenseCore
import Foundation

/// The journal formats `expense export` writes, and what each allows in an account name.
package enum JournalFormat: String, Sendable, CaseIterable {
    /// hledger's journal, which Ledger (ledger-cli) reads too.
    case hledger
    /// Beancount's input language (v2 and v3).
    case beancount

    /// One account component made of `text` (a category or a member's name): never empty, never holding the
    /// account separator `:` or anything else the format cannot hold in an account name.
    package func component(_ text: String) -> String {
        switch self {
        case .hledger: JournalExport.Hledger.component(text)
        case .beancount: JournalExport.Beancount.component(text)
        }
    }

    /// Why `name` cannot be an account of this format, or `nil` when it can.
    /// - Parameter posted: whether postings go to the account itself (`--assets-account`), not only to accounts
    ///   below it (`--expenses-account`): Beancount needs a component below its root type there.
    package func refusal(account name: String, posted: Bool) -> String? {
        switch self {
        case .hledger: JournalExport.Hledger.refusal(account: name)
        case .beancount: JournalExport.Beancount.refusal(account: name, posted: posted)
        }
    }
}

/// Every account of one journal named in one format: the expenses root's category accounts, the assets account
/// and the members' cash accounts under it, and the members' `Assets:Balances` accounts.
///
/// - Important: two different accounts never get one name. A category or a member's name is escaped by the
///   format (``JournalFormat/component(_:)``); when that makes two of them the same (`food & drink` and
///   `food drink` are both `Food-drink` in Beancount), each of those gets `-` and the first 8 hex digits of the
///   SHA-1 of its text's bytes (of a member's id) after it, longer only should that not tell them apart. So the
///   names depend only on the records, never on their order.
package struct JournalAccountNames: Sendable {
    /// Where the members' balances are kept.
    package static let balancesRoot = "Assets:Balances"

    private let names: [JournalExport.Account: String]

    /// The names of `accounts` in `format`, under `expensesRoot` and `assets` (checked already by
    /// ``refusal(format:expensesRoot:assets:)``).
    /// - Parameter memberName: a member's name, from which their component is made.
    package init(format: JournalFormat, expensesRoot: String, assets: String, accounts: [JournalExport.Account],
                 memberName: (UUID) -> String) {
        var categories: [String] = []
        var members: [UUID] = []
        var seenMembers = Set<UUID>()
        for account in accounts {
            switch account {
            case .expenses(let category): categories.append(category)  // accounts are distinct: each category once
            case .cash(let member), .balances(let member): if seenMembers.insert(member).inserted { members.append(member) }
            case .assets: break
            }
        }
        let categoryNames = Self.unique(categories.map { (text: format.component($0), source: Array($0.utf8)) })
        let memberNames = Self.unique(members.map { member in
            (text: format.component(memberName(member)), source: Array(UUIDText.lowercased(member).utf8))
        })
        var names: [JournalExport.Account: String] = [.assets: assets]
        for (category, name) in zip(categories, categoryNames) { names[.expenses(category: category)] = expensesRoot + ":" + name }
        for (member, name) in zip(members, memberNames) {
            names[.cash(member: member)] = assets + ":" + name
            names[.balances(member: member)] = Self.balancesRoot + ":" + name
        }
        self.names = names
    }

    /// The name of `account`, which was among the accounts given at init (else the assets account: never used so).
    package func name(_ account: JournalExport.Account) -> String {
        names[account] ?? names[.assets] ?? ""
    }

    /// Why the account options cannot be used with `format`, or `nil` when they can: each must be an account
    /// the format can hold, and neither may hold the other or ``balancesRoot`` (nor be held by it), so that no
    /// category, member or balance can land in another's account.
    package static func refusal(format: JournalFormat, expensesRoot: String, assets: String) -> String? {
        for (option, value, posted) in [("--expenses-account", expensesRoot, false), ("--assets-account", assets, true)] {
            if let reason = format.refusal(account: value, posted: posted) {
                return "\(option) \(DisplayText.quoted(value)) is not a \(format.displayName) account: \(reason)"
            }
        }
        let roots = [("--expenses-account", expensesRoot), ("--assets-account", assets), ("the balances account", balancesRoot)]
        for (index, (option, value)) in roots.enumerated() {
            for (otherOption, other) in roots[(index + 1)...] where holds(value, other) || holds(other, value) {
                return "\(option) \(DisplayText.quoted(value)) and \(otherOption) \(DisplayText.quoted(other)) overlap; "
                    + "name accounts that do not hold one another (the balances are kept in \(balancesRoot))"
            }
        }
        return nil
    }

    /// Whether `outer` is `inner` or one of its parents (compared by bytes).
    private static func holds(_ outer: String, _ inner: String) -> Bool {
        ExactText.same(outer, inner) || Array(inner.utf8).starts(with: Array((outer + ":").utf8))
    }

    /// `texts` made distinct (see the type's summary), in the same order; `source` is what the suffix is a hash of,
    /// distinct for each text.
    static func unique(_ texts: [(text: String, source: [UInt8])]) -> [String] {
        var suffixed = Set<Int>()
        var digits = 8
        while true {
            let names = texts.indices.map { index in
                suffixed.contains(index) ? texts[index].text + "-" + hex(SHA1.digest(texts[index].source)).prefix(digits) : texts[index].text
            }
            var holders: [[UInt8]: [Int]] = [:]
            for (index, name) in names.enumerated() { holders[Array(name.utf8), default: []].append(index) }
            let clashing = Set(holders.values.filter { $0.count > 1 }.joined())
            if clashing.isEmpty { return names }
            if clashing.isSubset(of: suffixed) {
                // Only the suffixes clash: longer ones, then (two texts with one SHA-1, never seen) their places.
                guard digits < 40 else {
                    return names.enumerated().map { clashing.contains($0.offset) ? $0.element + "-" + String($0.offset) : $0.element }
                }
                digits = 40
            }
            suffixed.formUnion(clashing)
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension JournalFormat {
    /// The format's name in messages: `hledger` or `Beancount`.
    var displayName: String { self == .hledger ? "hledger" : "Beancount" }
}
