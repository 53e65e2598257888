import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

/// `expense status`: the remote, the last sync, pending changes and open conflicts.
extension ExpenseRunner {
    /// `expense status [--json]`.
    func status() throws {
        let ledger = try readingLedger()
        let store = ledger.store
        let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: store)
        let queue = try store.pendingMutations(limit: Int.max)
        let conflicts = try store.conflicts()
        let dataConflicts = try dataConflicts(ledger)
        let conflictCount = conflicts.count + dataConflicts.count
        let cursor = try ledger.pullCursor()
        let lastSync = try store.metaValue(.lastSyncTime)
        let lastFailure = try ledger.lastSyncFailure()
        let role = try ledger.tokenRole()
        let tokenName = try ledger.tokenName()
        let twins = (try? ledger.recurringTwins())?.groups ?? []
        warnOverBudget(ledger)
        if command[ExpenseOptions.json] {
            let body: [String: JSONValue] = [
                "server": .string(orNull: remote?.server), "ledger": .string(orNull: remote?.ledger), "cursor": .int(cursor),
                "lastSync": .string(orNull: lastSync), "lastFailure": .string(orNull: lastFailure), "pending": .int(queue.count),
                "conflicts": .int(conflictCount), "rejected": .int(queue.count { $0.state == .rejected }),
                "changes": .array(queue.map { entry in
                    .object(["id": .string(UUIDText.lowercased(entry.id)), "kind": .string(entry.kind.rawValue),
                             "type": .string(entry.type.rawValue),
                             "state": .string(entry.state.rawValue), "baseVersion": .int(entry.baseVersion),
                             "reason": .string(orNull: entry.rejection?.reason)])
                }),
                "conflictIds": .array(conflicts.map { .string(UUIDText.lowercased($0.id)) }
                                     + dataConflicts.map { .string(UUIDText.lowercased($0.id)) }),
                // As the last `hello` reported them (null before the first sync, or from a daemon older than roles).
                "role": .string(orNull: role?.rawValue), "tokenName": .string(orNull: tokenName),
                // Open groups of possible twin recurring rules, each first the rule that goes on.
                "twinRules": .array(twins.map { .array($0.map { .string(UUIDText.lowercased($0)) }) }),
            ]
            console.out(JSONWriter.prettyText(.object(body)))
            return
        }
        var text = ""
        text += "server:     \(remote?.server ?? "(none; run `expense remote set`)")\n"
        text += "ledger:     \(remote?.ledger ?? "-")\n"
        if let role {
            let name = tokenName.map { " (token \(DisplayText.quoted($0)))" } ?? ""
            text += "role:       \(role.rawValue)\(name)" + (role.mayWrite ? "" : ": read only, local changes are refused") + "\n"
        }
        text += "cursor:     \(cursor)\n"
        text += "last sync:  \(lastSync ?? "never")\n"
        if let lastFailure {
            // The daemon's words: shown with control characters as `?`, so they cannot restyle the terminal.
            let shown = lastFailure.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
            text += "last error: \(shown)\n"
        }
        text += "pending:    \(queue.count)\n"
        text += "conflicts:  \(conflictCount)\n"
        if !twins.isEmpty { text += "twin rules: \(twins.count)\n" }
        if !queue.isEmpty {
            text += "\nChanges not yet synced:\n"
            for entry in queue.prefix(50) {
                let short = String(UUIDText.lowercased(entry.id).prefix(8))
                let what = entry.type == .delete ? "deleted" : (entry.baseVersion == 0 ? "new" : "modified")
                var line = "  \(what.padding(toLength: 9, withPad: " ", startingAt: 0)) \(short)"
                if entry.kind != .expense {
                    line += "  \(entry.kind.rawValue)"
                    if entry.type == .put, entry.baseVersion > 0 { line += " (\(entry.data.keys.sorted().joined(separator: ", ")))" }
                } else if let fields = fieldNames(entry.fields), entry.type == .put, entry.baseVersion > 0 {
                    line += "  (\(fields))"
                }
                if let rejection = entry.rejection { line += "  REJECTED \(rejection.reason): \(rejection.message)" }
                text += line + "\n"
            }
            if queue.count > 50 { text += "  … and \(queue.count - 50) more\n" }
        }
        if conflictCount > 0 {
            text += "\nConflicts (see `expense conflicts`, settle with `expense resolve ID --mine|--theirs|--edit`):\n"
            for conflict in conflicts {
                text += "  both changed  \(String(UUIDText.lowercased(conflict.id).prefix(8)))  \(conflictKind(conflict))\n"
            }
            for conflict in dataConflicts {
                text += "  both changed  \(String(UUIDText.lowercased(conflict.id).prefix(8)))  \(conflict.kind.rawValue)\n"
            }
        }
        let twinLines = twinStatusLines(ledger)
        if !twinLines.isEmpty {
            text += "\nPossible twin recurring rules (see `expense recurring list`; settle with `expense recurring keep-both` or `merge`):\n"
            text += twinLines.joined(separator: "\n") + "\n"
        }
        console.out(text)
    }

    private func fieldNames(_ fields: ExpenseDraft) -> String? {
        let names = ExpenseFields.names(in: fields)
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }
}
