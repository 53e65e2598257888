import ExpenseCore

/// Who owes whom: each member's balance of the currency from all shared expenses and transfers (the figures of
/// `expense balances`, whatever the report's range, since a balance is owed until it is settled) and the
/// transfers that would settle them (`expense settle`).
struct BalancesSection: ReportSection {
    var title: String { "Who owes whom" }

    func html(_ report: CurrencyReport, money: MoneyDisplay, id: String) -> String? {
        guard !report.balances.isEmpty else { return nil }
        var html = "<table>\n<caption>\(report.currency.code) balances of all shared expenses and transfers "
            + "(positive: the member is owed)</caption>\n"
            + "<thead><tr><th scope=\"col\">Member</th><th scope=\"col\" class=\"number\">Paid</th>"
            + "<th scope=\"col\" class=\"number\">Share</th><th scope=\"col\" class=\"number\">Balance</th></tr></thead>\n<tbody>\n"
        for row in report.balances {
            html += "<tr><td><bdi>\(HTMLEscape.text(row.name))</bdi></td>"
                + [row.balance.paid, row.balance.share, row.balance.net].map {
                    "<td class=\"number\">\(HTMLEscape.text(money.text($0, currency: report.currency)))</td>"
                }.joined() + "</tr>\n"
        }
        html += "</tbody>\n</table>\n"
        guard !report.settlement.isEmpty else { return html + "<p>Everyone is settled up.</p>\n" }
        html += "<p>To settle up:</p>\n<ul>\n"
        for transfer in report.settlement {
            html += "<li><bdi>\(HTMLEscape.text(transfer.from))</bdi> pays <bdi>\(HTMLEscape.text(transfer.to))</bdi> "
                + "\(HTMLEscape.text(money.text(transfer.amount, currency: report.currency)))</li>\n"
        }
        return html + "</ul>\n"
    }
}

extension CurrencyReport {
    /// A member's balance with their name, for the report.
    struct NamedBalance: Sendable {
        var name: String
        var balance: MemberBalance
    }

    /// A transfer that would settle, by names.
    struct NamedTransfer: Sendable {
        var from: String
        var to: String
        var amount: Int64
    }
}
