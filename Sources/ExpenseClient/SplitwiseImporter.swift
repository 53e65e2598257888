import ExpenseCore
import Foundation

/// Reads Splitwise's "Export as spreadsheet" CSV (`expense import --format splitwise`).
///
/// The format, as Splitwise writes it with the account's language set to English: a header
/// `Date,Description,Category,Cost,Currency,` followed by one column per group member (their display names);
/// often an empty line; one row per expense or payment, dates `YYYY-MM-DD`, amounts as decimals with a point
/// (`12.50`), and in each member column that member's net effect of the row (what they paid minus their share:
/// above zero they paid more than their share, below zero they owe), so a row's member values add up to zero;
/// payments have the category `Payment` (the member above zero paid the one below zero back); and last, one
/// `Total balance` row per currency (`DATE,Total balance, , ,CUR,balances…`), which is not a record.
///
/// Each row becomes one record: an expense paid by its one member above zero, split `exact` by each member's
/// share (the payer's `cost − value`, the others' `−value`, shares of zero left out), or a transfer for a
/// payment. A row with several members above zero (several payers) cannot be written with one payer, and is
/// refused: the values say what each member gained or owed, not what each paid, so any division of the cost
/// among payers would be invented.
package enum SplitwiseImporter {
    /// The header's first five columns, in order (compared trimmed, in any case).
    package static let leadingColumns = ["Date", "Description", "Category", "Cost", "Currency"]
    /// The category of a payment row.
    package static let paymentCategory = "Payment"
    /// The description of the balance rows at the end.
    package static let totalBalance = "Total balance"
    /// The category of a row without one: Splitwise's own default.
    package static let defaultCategory = "General"

    // MARK: - The file

    /// Parses `text` into its member names, rows and `Total balance` rows, each row's fields read exactly (no
    /// floating point).
    /// - Throws: ``ImportError``: `invalid_csv`, `invalid_header`, or the rows that could not be read, each with
    ///   its line (the first 50).
    package static func sheet(from text: String) throws(ImportError) -> SplitwiseSheet {
        var problems = Problems()
        let sheet = try parse(text, into: &problems)
        try problems.throwIfAny()
        return sheet
    }

    /// ``sheet(from:)``, the rows that could not be read added to `problems` instead of thrown.
    private static func parse(_ text: String, into problems: inout Problems) throws(ImportError) -> SplitwiseSheet {
        let records: [CSVRecord]
        do { records = try CSV.parse(text) } catch { throw .malformed(error) }
        let members = try memberNames(records.first)
        let width = leadingColumns.count + members.count
        var sheet = SplitwiseSheet(members: members, rows: [], totals: [])
        for record in records.dropFirst() {
            let fields = record.fields.map(\.trimmingSpacesAndTabs)
            // A line of empty cells is a spreadsheet's blank line, as the empty line after the header is.
            if fields.allSatisfy(\.isEmpty) { continue }
            guard fields.count == width else {
                problems.add(record.line, "invalid_row", "expected \(width) fields (the header's), found \(fields.count)")
                continue
            }
            do {
                if ExactText.same(fields[1], totalBalance) && fields[3].isEmpty {
                    let currency = try ExpenseValidator.validateCurrency(fields[4])
                    sheet.totals.append(SplitwiseTotal(line: record.line, currency: currency,
                                                       values: try values(fields, members: members, currency: currency)))
                    continue
                }
                let date = try ExpenseValidator.validateDate(fields[0])
                let currency = try ExpenseValidator.validateCurrency(fields[4])
                let cost = try amount(fields[3], currency: currency, signed: false)
                sheet.rows.append(SplitwiseRow(line: record.line, date: date, description: record.fields[1], category: fields[2],
                                               cost: cost, currency: currency,
                                               values: try values(fields, members: members, currency: currency)))
            } catch let error as ValidationError {
                problems.add(record.line, error.code, error.message)
            } catch let error as ImportError.RowProblem {
                problems.add(record.line, error.code, error.message)
            } catch {
                problems.add(record.line, "invalid_row", "\(error)")
            }
        }
        return sheet
    }

    /// The member columns' names: the header must start with ``leadingColumns`` and name at least one member,
    /// each a valid member name, none twice (by its bytes, as the ledger compares names).
    private static func memberNames(_ header: CSVRecord?) throws(ImportError) -> [String] {
        let fields = (header?.fields ?? []).map(\.trimmingSpacesAndTabs)
        guard fields.count > leadingColumns.count,
              zip(fields, leadingColumns).allSatisfy({ $0.lowercased() == $1.lowercased() }) else {
            throw .badHeader(found: header?.fields.joined(separator: ",") ?? "",
                             expected: "Splitwise's header '\(leadingColumns.joined(separator: ","))' followed by one column per "
                                 + "member (Splitwise names these columns in the account's language: set it to English and export again)")
        }
        var names: [String] = []
        var columns: [Int] = []   // each name's column, counted from 1
        var problems = Problems()
        for (offset, field) in fields.dropFirst(leadingColumns.count).enumerated() {
            let column = leadingColumns.count + offset + 1
            do throws(LedgerDataError) {
                let name = try LedgerDataValidator.memberName(field)
                if let earlier = names.firstIndex(where: { ExactText.same($0, name) }) {
                    problems.add(header?.line ?? 1, "invalid_header",
                                 "columns \(columns[earlier]) and \(column) both name \(DisplayText.quoted(name)); "
                                     + "a member's name is unique in a ledger")
                }
                names.append(name)
                columns.append(column)
            } catch {
                problems.add(header?.line ?? 1, "invalid_header",
                             "column \(column) (\(DisplayText.quoted(field))) is not a member's name: \(error.message)")
            }
        }
        try problems.throwIfAny()
        return names
    }

    /// The member columns of one row, in minor units of `currency`.
    /// - Throws: ``ImportError/RowProblem`` naming the member whose value is wrong.
    private static func values(_ fields: [String], members: [String], currency: Currency) throws -> [Int64] {
        try zip(members, fields.dropFirst(leadingColumns.count)).map { name, text in
            do {
                return try amount(text, currency: currency, signed: true)
            } catch let error as ValidationError {
                throw ImportError.RowProblem(line: 0, code: error.code, message: "the value of \(DisplayText.quoted(name)): \(error.message)")
            }
        }
    }

    /// An amount as Splitwise writes it, exactly in minor units of `currency`: a decimal with a point, `signed`
    /// allowing a leading `-` and zero (a member's value). Zeros past the currency's decimals are dropped (`1500.00`
    /// is ¥1500), any other digit there is refused; the digits are read by ``ExpenseCore/Money/parse(_:currency:)``.
    /// - Throws: ``ExpenseCore/ValidationError/invalidAmount(_:)``.
    package static func amount(_ text: String, currency: Currency, signed: Bool) throws -> Int64 {
        var body = Substring(text.trimmingSpacesAndTabs)
        let negative = signed && body.first == "-"
        if negative { body = body.dropFirst() }
        if let point = body.firstIndex(of: "."),
           body[body.index(after: point)...].dropFirst(currency.minorUnits).allSatisfy({ $0 == "0" }),
           body.distance(from: point, to: body.endIndex) - 1 > currency.minorUnits {
            let kept = body[body.index(after: point)...].prefix(currency.minorUnits)
            // At least one digit was after the point: `12.` stays as it is, for Money.parse to refuse.
            body = body[..<point] + (kept.isEmpty ? "" : "." + kept)
        }
        if signed, isZero(body) { return 0 }
        let magnitude = try Money.parse(String(body), currency: currency)
        return negative ? -magnitude : magnitude   // a magnitude is at most 2^53−1: negating cannot overflow
    }

    /// Whether `text` is a plain decimal zero: `0`, `00`, `0.00`.
    private static func isZero(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0 == "0" } }
    }

    // MARK: - One row

    /// What `row` is: an expense with its payer and shares, or a payment.
    ///
    /// The values must add up to zero (each row moves money between members only). A payment moves its cost
    /// from its one member above zero to its one member below zero. An expense's payer is its one member above
    /// zero; each member's share is the payer's `cost − value` and the others' `−value`, shares of zero left out;
    /// they add up to the cost exactly. With every value zero nobody owes anybody: no payer, no split.
    /// - Parameter members: the member columns' names, for messages.
    /// - Throws: ``ImportError/RowProblem`` on the row's line: `invalid_split` for values that do not add up or a
    ///   payer's value above the cost, `multiple_payers` for several members above zero, `invalid_payment` for a
    ///   payment that is not one member paying another the cost.
    package static func entry(of row: SplitwiseRow, members: [String]) throws(ImportError.RowProblem) -> SplitwiseEntry {
        func problem(_ code: String, _ message: String) -> ImportError.RowProblem {
            ImportError.RowProblem(line: row.line, code: code, message: message)
        }
        func money(_ value: Int64) -> String { Money.format(value, currency: row.currency, includeCode: true) }
        func name(_ column: Int) -> String { DisplayText.quoted(members.indices.contains(column) ? members[column] : "column \(column + 1)") }

        var sum: Int64 = 0
        for value in row.values {
            let (next, overflow) = sum.addingReportingOverflow(value)
            guard !overflow else { throw problem("invalid_split", "the members' values are too large to add up") }
            sum = next
        }
        guard sum == 0 else {
            throw problem("invalid_split", "the members' values add up to \(money(sum)), not 0: what the payer is owed must be "
                          + "what the others owe (the file was changed, or is not a Splitwise export)")
        }
        let payers = row.values.indices.filter { row.values[$0] > 0 }
        if row.isPayment {
            let payees = row.values.indices.filter { row.values[$0] < 0 }
            guard payers.count == 1, payees.count == 1, let from = payers.first, let to = payees.first, row.values[from] == row.cost else {
                throw problem("invalid_payment", "a payment moves its cost (\(money(row.cost))) from one member (above zero) "
                              + "to one other (below zero); this row's values do not")
            }
            return .payment(from: from, to: to)
        }
        guard payers.count <= 1 else {
            throw problem("multiple_payers", "several members paid part of it (the values of " + payers.map(name).joined(separator: ", ")
                          + " are above zero), and an expense here has one payer; in Splitwise, make it one expense per "
                          + "payer and export again, or leave the row out")
        }
        guard let payer = payers.first else { return .expense(payer: nil, shares: []) }
        var shares: [SplitwiseShare] = []
        var total: Int64 = 0
        for (column, value) in row.values.enumerated() {
            let share: Int64
            if column == payer {
                let (difference, overflow) = row.cost.subtractingReportingOverflow(value)
                guard !overflow, difference >= 0 else {
                    throw problem("invalid_split", "\(name(column)) is owed \(money(value)), more than the cost, \(money(row.cost))")
                }
                share = difference
            } else {
                share = -value   // at most 0 here, and a value is at least −(2^53−1): negating cannot overflow
            }
            guard share > 0 else { continue }
            let (next, overflow) = total.addingReportingOverflow(share)
            guard !overflow else { throw problem("invalid_split", "the shares are too large to add up") }
            total = next
            shares.append(SplitwiseShare(column: column, amount: share))
        }
        // Values adding up to zero make the shares add up to the cost; checked anyway, as the split's own rule.
        guard total == row.cost else {
            throw problem("invalid_split", "the shares add up to \(money(total)), not to the cost, \(money(row.cost))")
        }
        return .expense(payer: payer, shares: shares)
    }

    // MARK: - The whole import

    /// Reads `text` and turns every row into what this ledger will hold, given the ledger's `members`.
    ///
    /// A member column names a member by name: the ledger's member of that name (trimmed, by its bytes) is used;
    /// else the one whose id is the name's derived id (``memberId(named:)``: added by an earlier import, renamed
    /// since); else a new member with that id. Expense and transfer ids are derived from each row's content and
    /// its occurrence among identical rows, so importing a file twice, or on two machines, adds it once: a
    /// name-based UUID in ``ImportIdentity``'s namespace of `splitwise`, then the row's key, each text followed by
    /// a NUL byte (``ExpenseCore/NameBasedUUID/name(_:)``), then the occurrence in decimal. An expense's key is
    /// `expense`, its validated date, amount in minor units, currency, category and note; a payment's is
    /// `payment`, its date, cost, currency and description; both then name each member whose value is not zero,
    /// with the value, in the order of the names' bytes. So the members a row names are part of its content by
    /// name, not by column, and a later export of the same group (members added since, columns in another order)
    /// gives the same ids; `splitwise` keeps them apart from a CSV import's (``ImportIdentity``).
    /// - Throws: ``ImportError`` naming every bad row (the first 50) with its line; nothing is to be imported then.
    package static func read(_ text: String, members ledgerMembers: [Member]) throws(ImportError) -> SplitwiseImport {
        var problems = Problems()
        let sheet = try parse(text, into: &problems)
        let (members, newMembers) = resolve(sheet.members, in: ledgerMembers)
        var result = SplitwiseImport(members: members, newMembers: newMembers, expenses: [], transfers: [], warnings: [])
        // Keyed by the name's bytes: two rows are identical when their texts are, byte for byte.
        var occurrences: [[UInt8]: Int] = [:]
        func derivedId(_ key: [String]) -> UUID {
            let name = NameBasedUUID.name(["splitwise"] + key)
            let occurrence = occurrences[name, default: 0] + 1
            occurrences[name] = occurrence
            return ImportIdentity.nameBased(namespace: ImportIdentity.namespace, name: name + Array(String(occurrence).utf8))
        }
        for row in sheet.rows {
            do {
                // Who the row names, by name, in one order whatever the columns' order.
                let named = row.values.indices.filter { row.values[$0] != 0 }
                    .map { (sheet.members[$0], row.values[$0]) }
                    .sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
                switch try entry(of: row, members: sheet.members) {
                case .payment(let from, let to):
                    let key = ["payment", row.date.description, String(row.cost), row.currency.code, row.description]
                        + named.flatMap { [$0.0, String($0.1)] }
                    let id = derivedId(key)
                    let transfer = Transfer(id: id, from: members[from].id, to: members[to].id, amount: row.cost,
                                            currency: row.currency, date: row.date)
                    _ = try LedgerDataValidator.validate(kind: .transfer, id: id, fields: transfer.fields)
                    result.transfers.append(SplitwiseTransfer(line: row.line, transfer: transfer))
                case .expense(let payer, let shares):
                    let placeholder = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
                    var draft = ExpenseDraft(id: .value(placeholder), amount: row.cost, currency: .value(row.currency),
                                             category: row.category.isEmpty ? defaultCategory : row.category,
                                             date: .value(row.date), note: row.description)
                    draft.paidBy = payer.map { UUIDText.lowercased(members[$0].id) } ?? ""
                    do throws(SplitError) {
                        draft.split = shares.isEmpty ? "" : try SplitSpec(method: .exact, parts: shares.map {
                            SplitSpec.Part(member: members[$0.column].id, weight: $0.amount)
                        }).text
                    } catch {
                        throw ValidationError.invalidSplit(error)
                    }
                    draft.completeCreation(currency: row.currency)   // a field added later gets its default, as in a CSV import
                    let valid = try ExpenseValidator.validate(draft)
                    let key = ["expense", valid.date.description, String(valid.amount), valid.currency.code, valid.category, valid.note]
                        + named.flatMap { [$0.0, String($0.1)] }
                    result.expenses.append(ImportRow(line: row.line, expense: valid.with(id: derivedId(key)), idGiven: false))
                }
            } catch let error as ImportError.RowProblem {
                problems.add(row.line, error.code, error.message)
            } catch let error as ValidationError {
                problems.add(row.line, error.code, error.message)
            } catch let error as LedgerDataError {
                problems.add(row.line, error.code, error.message)
            } catch {
                problems.add(row.line, "invalid_row", "\(error)")
            }
        }
        try problems.throwIfAny()
        result.warnings = totalWarnings(sheet)
        return result
    }

    /// The id of the member added for the column named `name` (trimmed): a name-based UUID of the name, so that
    /// an import again, or on another machine, finds or makes the same member.
    package static func memberId(named name: String) -> UUID { Member.id(named: name) }


    /// Each column's member (the ledger's, or new) and the new ones, in the header's order.
    private static func resolve(_ names: [String], in ledger: [Member]) -> (all: [Member], new: [Member]) {
        var all: [Member] = []
        var new: [Member] = []
        for name in names {
            let id = memberId(named: name)
            if let member = Member.named(name, in: ledger) ?? ledger.first(where: { $0.id == id }) {
                all.append(member)
            } else {
                let member = Member(id: id, name: name)
                all.append(member)
                new.append(member)
            }
        }
        return (all, new)
    }

    /// A warning for each `Total balance` row the rows do not add up to (in its currency, member by member).
    private static func totalWarnings(_ sheet: SplitwiseSheet) -> [String] {
        var warnings: [String] = []
        for total in sheet.totals {
            var sums = Array(repeating: Int64(0), count: sheet.members.count)
            var overflow = false
            for row in sheet.rows where row.currency == total.currency {
                for (column, value) in row.values.enumerated() {
                    let (next, over) = sums[column].addingReportingOverflow(value)
                    overflow = overflow || over
                    sums[column] = next
                }
            }
            guard !overflow else { continue }
            let differing = sheet.members.indices.filter { sums[$0] != total.values[$0] }
            guard !differing.isEmpty else { continue }
            func money(_ value: Int64) -> String { Money.format(value, currency: total.currency, includeCode: true) }
            warnings.append("line \(total.line): the Total balance row does not match the rows: "
                + differing.map { "\(DisplayText.quoted(sheet.members[$0])) \(money(total.values[$0])) there, \(money(sums[$0])) from the rows" }
                    .joined(separator: "; ")
                + "; balances here follow the rows (is the file complete?)")
        }
        return warnings
    }
}

/// The bad rows of a file, found in two passes (reading, then what each row means) and reported in line order:
/// the first ``ImportError/shownProblems`` of them, and how many there are.
private struct Problems {
    private var all: [ImportError.RowProblem] = []

    mutating func add(_ line: Int, _ code: String, _ message: String) {
        all.append(.init(line: line, code: code, message: message))
    }

    func throwIfAny() throws(ImportError) {
        guard !all.isEmpty else { return }
        // Sorted by line only: a line's problems keep the order they were found in (the sort is stable).
        let shown = Array(all.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
            .map(\.element).prefix(ImportError.shownProblems))
        throw .invalidRows(shown, total: all.count)
    }
}
