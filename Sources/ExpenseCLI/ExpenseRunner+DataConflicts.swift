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

    /// The text of `expense conflicts` for them: the id, the kind, then one line per field that differs.
    func dataConflictText(_ conflicts: [DataConflict]) -> String {
        var text = ""
        for conflict in conflicts {
            text += "\(UUIDText.lowercased(conflict.id))  \(conflict.kind.rawValue)\n"
            text += "  FIELD     MINE                           THEIRS\n"
            let theirs = conflict.theirs.deleted ? [:] : conflict.theirs.fields
            guard let mine = conflict.mine else {
                text += "  " + "(record)".padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                    + TerminalWidth.padded("deleted", to: 30) + " " + (conflict.theirs.deleted ? "deleted" : "changed") + "\n"
                continue
            }
            for name in mine.keys.sorted() where !(theirs[name].map { $0.same(as: mine[name] ?? $0) } ?? false) {
                text += "  " + name.padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                    + TerminalWidth.padded(ExpenseTable.oneLine(Self.text(mine[name]), width: 30), to: 30) + " "
                    + ExpenseTable.oneLine(conflict.theirs.deleted ? "deleted" : Self.text(theirs[name]), width: 30) + "\n"
            }
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
        try ledger.ensureWritable()
        switch side {
        case .mine: try data.resolve(conflict, .mine)
        case .theirs: try data.resolve(conflict, .theirs)
        case .edit:
            throw usage("--edit settles expense conflicts; for a \(conflict.kind.rawValue), use --mine or --theirs, then change it "
                        + "with its own command (`expense budget set`, `expense recurring …`, `expense config set`)")
        }
        console.err("Resolved the \(conflict.kind.rawValue) conflict on \(UUIDText.lowercased(conflict.id).prefix(8)) with "
                    + (side == .mine ? "this machine's side; run `expense sync` to send it." : "the daemon's side."))
        return true
    }

    private static func text(_ value: LedgerDataValue?) -> String {
        guard let value else { return "(unset)" }
        var writer = JSONWriter()
        LedgerDataJSON.write(value, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
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
