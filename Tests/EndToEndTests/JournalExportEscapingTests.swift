import ExpenseCLI
import ExpenseCore
import Foundation
import Testing

/// Each journal format's escaping of categories, names and notes, its refusal of account options, and the
/// disambiguation of two categories that escape alike.
@Suite struct JournalExportEscapingTests {
    typealias Hledger = JournalExport.Hledger
    typealias Beancount = JournalExport.Beancount

    @Test("hledger account components", arguments: [
        ("food & drink", "food & drink"), ("a;b", "a,b"), ("a:b::c", "a-b--c"), ("a  b\t c", "a b c"), (" x\n", "x"),
        ("\u{1B}[31mred", "[31mred"), ("طعام 🍕", "طعام 🍕"), ("\u{202E}evil\u{2066}", "evil"), ("", "_"), (";", ","),
        ("a\u{A0}\u{2003}b", "a b"), ("\u{85}x\u{2028}y", "x y"), ("👩‍👩‍👧 family", "👩‍👩‍👧 family"), ("שלום", "שלום"),
        ("(x)", "(x)"), ("say \"hi\" \\", "say \"hi\" \\"),
    ])
    func hledgerComponent(text: String, expected: String) {
        let component = Hledger.component(text)
        #expect(component == expected)
        #expect(Hledger.refusal(account: "Expenses:" + component) == nil)
    }

    @Test("hledger descriptions", arguments: [
        ("Lunch; with friends", "Lunch, with friends"), ("two\nlines\tand  tab", "two lines and tab"), ("time: 10:30", "time: 10:30"),
        ("\u{7}bell\u{7F}", "bell"), ("", ""), ("🎉 مرحبا", "🎉 مرحبا"),
    ])
    func hledgerDescription(text: String, expected: String) {
        #expect(Hledger.description(text) == expected)
    }

    @Test("Beancount account components", arguments: [
        ("food & drink", "Food-drink"), ("Food", "Food"), ("éclair", "Éclair"), ("cafe\u{301}", "Café"), ("2026 trip", "2026-trip"),
        ("طعام", "X-طعام"), ("🍕", "X"), ("🍕 pizza", "Pizza"), ("x-ray", "X-ray"), ("a:b", "A-b"), ("ß", "SS"),
        ("אוכל ביחד", "X-אוכל-ביחד"), ("", "X"), (";;", "X"), ("say \"hi\" \\ now", "Say-hi-now"), ("a\u{1B}[1mb", "A-1mb"),
        ("Ünïcödé", "Ünïcödé"), ("名前", "X-名前"), ("  --  ", "X"), ("٣ things", "٣-things"),
    ])
    func beancountComponent(text: String, expected: String) {
        let component = Beancount.component(text)
        #expect(component == expected)
        #expect(Beancount.refusal(account: "Expenses:" + component, posted: true) == nil)
    }

    @Test("Beancount strings", arguments: [
        ("say \"hi\"", "\"say \\\"hi\\\"\""), ("back\\slash", "\"back\\\\slash\""), ("two\nlines\r\n", "\"two lines  \""),
        ("tab\there", "\"tab here\""), ("\u{202E}x", "\" x\""), ("🎉 שלום", "\"🎉 שלום\""), ("", "\"\""),
    ])
    func beancountString(text: String, expected: String) {
        #expect(Beancount.string(text) == expected)
    }

    @Test("account options each format can hold", arguments: [
        (JournalFormat.hledger, "Expenses", "Assets:Cash"), (.hledger, "Dépenses:Ménage", "Actif:Caisse commune"),
        (.beancount, "Expenses", "Assets:Cash"), (.beancount, "Expenses:Household", "Liabilities:Card"),
        (.beancount, "Expenses", "Assets:Caja-Chica"), (.beancount, "Expenses", "Assets:Ñandú-2"),
    ])
    func accepted(format: JournalFormat, expensesRoot: String, assets: String) {
        let refusal = JournalAccountNames.refusal(format: format, expensesRoot: expensesRoot, assets: assets)
        #expect(refusal == nil, "\(refusal ?? "")")
    }

    @Test("account options refused, with the reason", arguments: [
        (JournalFormat.hledger, "", "Assets:Cash", "--expenses-account '' is not a hledger account: it is empty"),
        (.hledger, "Expenses;x", "Assets:Cash", "it holds ;, which starts a comment"),
        (.hledger, "Expenses  Home", "Assets:Cash", "two spaces in a row"),
        (.hledger, "Expenses", "(Assets:Cash)", "--assets-account '(Assets:Cash)' is not a hledger account: it starts with ("),
        (.hledger, "*Expenses", "Assets:Cash", "it starts with *"),
        (.hledger, "Expenses::Home", "Assets:Cash", "empty part"), (.hledger, "Expenses", "Assets:", "empty part"),
        (.hledger, "Expenses", "Assets :Cash", "starts or ends with a space"),
        (.hledger, "Expenses\tHome", "Assets:Cash", "control character"),
        (.hledger, "Expenses", "Assets", "overlap"), (.hledger, "Expenses", "Assets:Balances:Mine", "overlap"),
        (.hledger, "Assets:Cash", "Assets:Cash:Wallet", "overlap"), (.hledger, "Expenses", "Expenses:Cash", "overlap"),
        (.beancount, "Spending", "Assets:Cash", "--expenses-account 'Spending' is not a Beancount account: it must start with Assets"),
        (.beancount, "Expenses", "Assets", "postings need an account below the root, such as Assets:Cash"),
        (.beancount, "Expenses", "Assets:cash", "not 'cash'"), (.beancount, "Expenses", "Assets:Cash Box", "not 'Cash Box'"),
        (.beancount, "Expenses:", "Assets:Cash", "not ''"), (.beancount, "Expenses", "Assets:Cash_1", "not 'Cash_1'"),
        (.beancount, "Expenses", "Assets:Caisse:🍕", "not '🍕'"),
    ])
    func refused(format: JournalFormat, expensesRoot: String, assets: String, reason: String) {
        let refusal = JournalAccountNames.refusal(format: format, expensesRoot: expensesRoot, assets: assets) ?? ""
        #expect(refusal.contains(reason), "\(refusal)")
    }

    @Test("categories that escape alike get a hash of their own text, whatever their order")
    func collisions() throws {
        let categories = ["food & drink", "food drink", "Food-drink", "cafe\u{301}", "caf\u{E9}", "rent"]
        let accounts = categories.map { JournalExport.Account.expenses(category: $0) }
        let names = JournalAccountNames(format: .beancount, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: accounts,
                                        memberName: { _ in "" })
        let reversed = JournalAccountNames(format: .beancount, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: accounts.reversed(),
                                           memberName: { _ in "" })
        let written = accounts.map(names.name)
        #expect(written == accounts.map(reversed.name))
        #expect(Set(written.map { Array($0.utf8) }).count == categories.count, "\(written)")
        #expect(written.last == "Expenses:Rent")
        for (category, name) in zip(categories.dropLast(), written) {
            let hash = SHA1.digest(Array(category.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
            #expect(name.hasSuffix("-" + hash), "\(category): \(name)")
            #expect(Beancount.refusal(account: name, posted: true) == nil)
        }
        // In hledger only the two that differ by `&` and the dash stay apart without help; the two cafés are two byte strings.
        let hledger = JournalAccountNames(format: .hledger, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: accounts,
                                          memberName: { _ in "" })
        #expect(accounts.map(hledger.name) == categories.map { "Expenses:" + $0 })
        let clashing = [";x", ",x", "a:b", "a-b"].map { JournalExport.Account.expenses(category: $0) }
        let clashNames = JournalAccountNames(format: .hledger, expensesRoot: "Expenses", assets: "Assets:Cash", accounts: clashing,
                                             memberName: { _ in "" })
        #expect(Set(clashing.map { Array(clashNames.name($0).utf8) }).count == 4)
        #expect(clashing.allSatisfy { clashNames.name($0).count == "Expenses:,x-".count + 8 || clashNames.name($0).count == "Expenses:a-b-".count + 8 })
    }

    @Test("a name that is another's escaped name with a suffix makes that one take a suffix too")
    func suffixedNameClashingWithAPlainOne() throws {
        let first = SHA1.digest(Array("a b".utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
        // "a b" and "a  b" both escape to "a b", so each gets its hash; a third category is literally "a b-<hash of a b>".
        let texts = ["a b", "a  b", "a b-" + first]
        let accounts = texts.map { JournalExport.Account.expenses(category: $0) }
        let names = JournalAccountNames(format: .hledger, expensesRoot: "E", assets: "A:C", accounts: accounts, memberName: { _ in "" })
        let written = accounts.map(names.name)
        #expect(Set(written.map { Array($0.utf8) }).count == 3, "\(written)")
    }

    @Test func membersGetTheSameComponentInCashAndBalances() throws {
        let member = UUID()
        let names = JournalAccountNames(format: .beancount, expensesRoot: "Expenses", assets: "Assets:Bank", accounts: [.cash(member: member), .balances(member: member), .assets],
                                        memberName: { _ in "zoë o'brien" })
        #expect(names.name(.cash(member: member)) == "Assets:Bank:Zoë-o-brien")
        #expect(names.name(.balances(member: member)) == "Assets:Balances:Zoë-o-brien")
        #expect(names.name(.assets) == "Assets:Bank")
    }
}
