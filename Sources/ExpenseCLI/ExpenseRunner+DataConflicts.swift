import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

/// Conflicts on budgets, recurring rules and settings in `expense conflicts` and `expense resolve`, beside the
/// expense conflicts and settled the same way (`--mine`, `--theirs`).
extension ExpenseRunner {
    /// The open budget, rule and setting conflicts of `ledger`'s cache (none for the JSON cache).
    func dataConflicts(_ ledger: LocalLedger) throws -> [DataConflict] {
        try ledger.dataCache?.conflictDetails() ?? []
    }

    /// The text of `expense conflicts` for them: the id and the kind, then each field that differs with both
    /// values in full, one per line (money in the reader's locale), then the commands that settle them.
    func dataConflictText(_ conflicts: [DataConflict], money: MoneyDisplay) -> String {
        var text = ""
        for conflict in conflicts {
            text += "\(UUIDText.lowercased(conflict.id))  \(conflict.kind.rawValue)\n"
            let theirs = conflict.theirs.deleted ? [:] : conflict.theirs.fields
            guard let mine = conflict.mine else {
                text += "  (record)\n    mine:   deleted\n    theirs: " + (conflict.theirs.deleted ? "deleted" : "changed") + "\n"
                continue
            }
            // The currency of the record's money: this machine's when it changed it, else the daemon's.
            let currency = [mine["currency"], theirs["currency"]].lazy.compactMap { value -> Currency? in
                if case .text(let code)? = value { return Currency(code: code) }
                return nil
            }.first
            for name in mine.keys.sorted() where !(theirs[name].map { $0.same(as: mine[name] ?? $0) } ?? false) {
                text += "  \(DisplayText.escaped(name))\n"
                text += "    mine:   " + Self.text(mine[name], field: name, currency: currency, money: money) + "\n"
                text += "    theirs: " + (conflict.theirs.deleted ? "deleted" : Self.text(theirs[name], field: name, currency: currency, money: money)) + "\n"
            }
        }
        if !conflicts.isEmpty {
            text += "Settle each with `expense resolve ID --mine` (send this machine's side again) or `--theirs` (keep the daemon's)"
            let commands = Set(conflicts.map(\.kind)).sorted().map { Self.changeCommands[$0] ?? "its own command" }
            text += "; then change it with " + commands.joined(separator: ", ") + ".\n"
        }
        return text
    }

    /// The JSON objects of `expense conflicts --json` for them: `record` names the kind; `mine` and `theirs`
    /// hold the fields as on the wire (Protocol.md §10.2).
    func dataConflictJSON(_ conflicts: [DataConflict]) -> [JSONValue] {
        conflicts.map { conflict in
            var theirs = Self.json(conflict.theirs.fields)
            theirs["version"] = .int(conflict.theirs.version)
            theirs["deleted"] = .bool(conflict.theirs.deleted)
            return .object(["id": .string(UUIDText.lowercased(conflict.id)), "record": .string(conflict.kind.rawValue),
                            "mine": .object(conflict.mine.map { ["type": .string("put"), "fields": .object(Self.json($0))] }
                                            ?? ["type": .string("delete")]),
                            "theirs": .object(theirs)])
        }
    }

    /// `expense resolve ID --mine|--theirs` (`side`) for a budget, rule or setting conflict whose id starts with `prefix`;
    /// `false` when there is none (an expense conflict, then).
    func resolveDataConflict(_ prefix: String, side: ExpenseOptions.ResolveSide, in ledger: LocalLedger) throws -> Bool {
        let lowered = prefix.lowercased()
        guard lowered.count >= LocalLedger.minimumPrefixLength, let data = ledger.dataCache else { return false }
        let matches = try data.conflictDetails().filter { UUIDText.lowercased($0.id).hasPrefix(lowered) }
        guard let conflict = matches.first else { return false }
        guard matches.count == 1 else { throw StoreError.ambiguousId(prefix, matches: matches.map { UUIDText.lowercased($0.id) }) }
        switch side {
        case .mine: try ledger.resolve(conflict, .mine)
        case .theirs: try ledger.resolve(conflict, .theirs)
        case .edit:
            throw usage("--edit settles expense conflicts; for a \(conflict.kind.rawValue), use --mine or --theirs, then change it "
                        + "with its own command (`expense budget set`, `expense recurring …`, `expense config set`)")
        }
        console.err("Resolved the \(conflict.kind.rawValue) conflict on \(UUIDText.lowercased(conflict.id).prefix(8)) with "
                    + (side == .mine ? "this machine's side; run `expense sync` to send it." : "the daemon's side."))
        return true
    }

    /// The commands that change a record of each kind, named by the footer of `expense conflicts`.
    private static let changeCommands: [RecordKind: String] = [
        .budget: "`expense budget set`", .recurring: "`expense recurring add`, `skip` or `remove`",
        .setting: "`expense config set timezone`", .member: "`expense member rename` or `leave`",
        .transfer: "`expense settle remove` and `settle record`", .rate: "`expense rate set` or `rate remove`",
        .rule: "`expense rule move` or `rule remove` (and `rule add` again)",
    ]

    /// A field's value as a person reads it: an amount as money, a budget's `amounts` as "from DATE: MONEY",
    /// anything else as its JSON; never cut, control characters escaped.
    private static func text(_ value: LedgerDataValue?, field: String, currency: Currency?, money: MoneyDisplay) -> String {
        guard let value else { return "(unset)" }
        switch (field, value, currency) {
        case ("amount", .integer(let minor), let currency?):
            return money.text(minor, currency: currency)
        case ("amounts", .list(let steps), let currency?):
            let shown = steps.map { step -> String? in
                guard case .object(let members) = step, case .text(let from)? = members["from"],
                      case .integer(let minor)? = members["amount"] else { return nil }
                return "from \(DisplayText.escaped(from)): " + money.text(minor, currency: currency)
            }
            if !shown.contains(nil) { return shown.compactMap { $0 }.joined(separator: ", ") }
        default: break
        }
        var writer = JSONWriter()
        LedgerDataJSON.write(value, to: &writer)
        return DisplayText.escaped(String(decoding: writer.bytes, as: UTF8.self))
    }

    /// The fields as on the wire (what ``LedgerDataJSON`` writes, read back as values to lay out).
    private static func json(_ fields: LedgerDataFields) -> [String: JSONValue] {
        fields.mapValues { value -> JSONValue in
            var writer = JSONWriter()
            LedgerDataJSON.write(value, to: &writer)
            return (try? JSONValue(parsing: writer.bytes)) ?? .null
        }
    }
}
