import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol

extension ExpenseRunner {
    /// `expense tag list [--json]`: every tag of the live expenses (the local copy), sorted by its bytes, with how
    /// many expenses have it and their totals per currency.
    func tagList() throws {
        let ledger = try readingLedger()
        defer { noteUnsynced(ledger) }
        var totals = TagTotals()
        try ledger.forEach { try totals.add($0) }
        let tags = totals.tags
        if command[ExpenseOptions.json] {
            console.out(JSONWriter.prettyText(.array(tags.map { tag in
                .object(["tag": .string(tag.tag), "count": .int(tag.count),
                         "totals": .array(tag.totals.map { total in
                             .object(["currency": .string(total.currency.code), "amount": .int(total.amount), "count": .int(total.count)])
                         })])
            })))
            return
        }
        guard !tags.isEmpty else { return console.err("No tags; tag an expense with `expense add … --tag T`.") }
        let money = moneyDisplay(ledger)
        let rows = [["TAG", "COUNT", "TOTALS"]] + tags.map { tag in
            [DisplayText.escapedWhole(tag.tag), String(tag.count),
             tag.totals.map { money.text($0.amount, currency: $0.currency) }.joined(separator: ", ")]
        }
        // In terminal columns (a tag may be CJK or emoji); the count right-aligned, the totals last and unpadded.
        let widths = (0..<2).map { column in rows.map { TerminalWidth.of($0[column]) }.max() ?? 0 }
        for row in rows {
            let count = String(repeating: " ", count: widths[1] - TerminalWidth.of(row[1])) + row[1]
            console.out(TerminalWidth.padded(row[0], to: widths[0]) + "  " + count + "  " + row[2] + "\n")
        }
    }
}
