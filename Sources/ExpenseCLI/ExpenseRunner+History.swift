import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation

/// `expense history`, `expense log` and `expense undo` (docs/usage.md, "History and undo").
extension ExpenseRunner {
    /// The record an id argument names: a live expense by prefix, else a full id, or a prefix of an id in this
    /// machine's journal or of a budget, rule or other record this cache holds.
    func historyId(_ ledger: LocalLedger, _ text: String) throws -> UUID {
        do {
            return try ledger.find(text).id
        } catch let error as StoreError {
            if let id = UUIDText.parse(text) { return id }
            let wanted = text.lowercased()
            let known = try ledger.journal().flatMap(\.ids) + Self.recordIds(ledger)
            let matches = Set(known.filter { UUIDText.lowercased($0).hasPrefix(wanted) })
            if wanted.count >= LocalLedger.minimumPrefixLength, matches.count == 1, let id = matches.first { return id }
            throw error
        }
    }

    /// The ids of the budgets, rules and other records this cache holds, deleted ones included (none for the
    /// JSON cache, which keeps no such records).
    private static func recordIds(_ ledger: LocalLedger) throws -> [UUID] {
        guard let data = try? LedgerDataCache(store: ledger.store) else { return [] }
        return try RecordKind.additional.flatMap { try data.records($0).map(\.id) }
    }

    /// A sync engine for a read of the daemon, or `nil` when no remote is set.
    private func historyEngine(_ ledger: LocalLedger) throws -> SyncEngine? {
        guard let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: ledger.store) else { return nil }
        var engine = SyncEngine(ledger: ledger, remote: remote)
        engine.configuration.attempts = 2
        engine.configuration.connectTimeout = connectTimeout
        return engine
    }

    /// `expense history ID [--json]`.
    func history() throws {
        let ledger = try self.ledger()
        let id = try historyId(ledger, command[ExpenseArguments.id] ?? "")
        let money = moneyDisplay(ledger)
        var reason = "no remote is set"
        if let engine = try historyEngine(ledger) {
            do {
                let (entries, horizon) = try engine.history(id: id, kinds: Set(RecordKind.additional))
                if command[ExpenseOptions.json] {
                    console.out(Self.json(entries) + "\n")
                } else if entries.isEmpty {
                    console.err("The daemon has no history of \(UUIDText.lowercased(id))"
                                + (horizon > 0 ? " (changes older than its compaction horizon are gone)." : "."))
                } else {
                    console.out("history of \(UUIDText.lowercased(id)) (from the daemon)\n")
                    for entry in entries { console.out(Self.line(entry, money: money, showId: false, ledgerCurrency: try? ledger.ledgerCurrency()) + "\n") }
                }
                return
            } catch let error as SyncError {
                switch error {
                case .unreachable, .unanswered: reason = "the daemon is unreachable"
                default: throw error
                }
            }
        }
        console.err("Note: \(reason); showing what this cache knows.")
        if let copy = try ledger.serverCopy(id), copy.version > 0 {
            console.out("v\(copy.version)  last synced\(copy.deleted ? " (deleted)" : "")  \(Self.describe(copy.expense, money: money))\n")
        }
        for entry in try ledger.journal() where entry.names(id) {
            console.out("this machine  \(Self.timeText(entry.time))  \(entry.command)\(entry.undone ? " (undone)" : "")  "
                        + Self.describe(entry, money: money) + "\n")
        }
        if try ledger.hasPending(id), let local = try ledger.localRecord(id) {
            console.out("not synced yet  \(local.deleted ? "deleted" : Self.describe(local.expense, money: money))\n")
        }
    }

    /// `expense log [--since DATE] [--by NAME] [--json]`.
    func activityLog() throws {
        let sinceDay = try command.value(ExpenseOptions.since)
        let sinceTime = sinceDay.map(Self.startOf)
        let who = command[ExpenseOptions.byToken]
        let ledger = try self.ledger(readOnly: true)
        let money = moneyDisplay(ledger)
        var reason = "no remote is set"
        if let engine = try historyEngine(ledger) {
            do {
                let entries = try engine.history(id: nil, sinceTime: sinceTime, kinds: Set(RecordKind.additional)).entries
                    .filter { entry in who.map { name in entry.who.map { ExactText.same($0, name) } ?? false } ?? true }
                if command[ExpenseOptions.json] {
                    console.out(Self.json(entries) + "\n")
                } else if entries.isEmpty {
                    console.err("No changes.")
                } else {
                    for entry in entries { console.out(Self.line(entry, money: money, showId: true, ledgerCurrency: try? ledger.ledgerCurrency()) + "\n") }
                }
                return
            } catch let error as SyncError {
                switch error {
                case .unreachable, .unanswered: reason = "the daemon is unreachable"
                default: throw error
                }
            }
        }
        console.err("Note: \(reason); showing this machine's own recent commands.")
        for entry in try ledger.journal() where entry.time >= (sinceTime ?? 0) {
            console.out("\(Self.timeText(entry.time))  this machine  \(entry.command)\(entry.undone ? " (undone)" : "")  "
                        + "\(UUIDText.lowercased(entry.id).prefix(8))  " + Self.describe(entry, money: money) + "\n")
        }
    }

    /// `expense undo ID` or `expense undo --last`.
    func undo() throws {
        let last = command[ExpenseOptions.last]
        guard last != (command[ExpenseArguments.id] != nil) else {
            throw usage("Give an expense's id or --last (not both)")
        }
        let ledger = try self.ledger()
        let plan: UndoPlan
        var journalIndex: Int?
        if last {
            let journal = try ledger.journal()
            guard let index = journal.indices.last(where: { journal[$0].command != "undo" && !journal[$0].undone }) else {
                throw CommandFailure(.failure, "Error: nothing_to_undo: this machine has no command left to undo")
            }
            journalIndex = index
            switch journal[index].subject {
            case .records(let steps):
                return try finishUndo(steps, ledger: ledger, journalIndex: index, what: "`\(journal[index].command)`")
            case .expense(let before, let after):
                if journal[index].command == "import" { return try undoImport(journal[index], at: index, ledger: ledger) }
                plan = try planFromJournal(journal[index], before: before, after: after, ledger: ledger)
            }
        } else {
            let id = try historyId(ledger, command[ExpenseArguments.id] ?? "")
            let journal = try ledger.journal()
            if try ledger.hasPending(id), let index = journal.indices.last(where: { journal[$0].names(id) }),
               !journal[index].undone || journal[index].command == "undo" {
                let undoing = journal[index].command == "undo" ? nil : index
                switch journal[index].subject {
                case .records(let steps):
                    // Only this record's steps: the command's others stay as they are.
                    return try finishUndo(steps.filter { $0.id == id }, ledger: ledger, journalIndex: undoing,
                                          what: "`\(journal[index].command)` of \(UUIDText.lowercased(id).prefix(8))")
                case .expense(let before, let after):
                    return try finishUndo(UndoPlan(reverting: id, before: before, after: after, baseVersion: 0), ledger: ledger,
                                          journalIndex: undoing)
                }
            }
            guard let engine = try historyEngine(ledger) else {
                throw CommandFailure(.usage, "Error: not_configured: undoing a synced change needs the daemon's history; "
                                     + "set a remote (`expense remote set`), or use `expense undo --last` for this machine's commands")
            }
            guard let entry = try engine.history(id: id, kinds: Set(RecordKind.additional)).entries.last else {
                throw CommandFailure(.failure, "Error: nothing_to_undo: the daemon has no change of \(UUIDText.lowercased(id)) to undo")
            }
            let notSynced = CommandFailure(.failure, "Error: nothing_to_undo: this cache has not synced \(UUIDText.lowercased(id)) yet; "
                                           + "run `expense sync` first")
            if entry.kind != .expense {
                guard let step = try ledger.step(reverting: entry) else { throw notSynced }
                return try finishUndo([step], ledger: ledger, journalIndex: nil,
                                      what: "the \(entry.action.rawValue) of \(entry.kind.rawValue) \(UUIDText.lowercased(id).prefix(8))")
            }
            guard let made = UndoPlan(reverting: entry, tombstone: try ledger.serverCopy(id)?.expense) else { throw notSynced }
            plan = made
        }
        try finishUndo(plan, ledger: ledger, journalIndex: journalIndex)
    }

    /// The inverse of a journal entry: folded into the local change when it is still waiting; else based on the
    /// version it made (the synced copy when it still holds what the command left, else the daemon's history of
    /// this client's last change of it).
    private func planFromJournal(_ entry: JournalEntry, before: JournalEntry.State?, after: JournalEntry.State,
                                 ledger: LocalLedger) throws -> UndoPlan {
        func plan(_ baseVersion: Int64) -> UndoPlan { UndoPlan(reverting: entry.id, before: before, after: after, baseVersion: baseVersion) }
        if try ledger.hasPending(entry.id) { return plan(0) }
        if let copy = try ledger.serverCopy(entry.id), copy.deleted == after.deleted, copy.expense == after.expense {
            return plan(copy.version)
        }
        guard let engine = try historyEngine(ledger), let clientId = try ledger.store.clientId() else {
            throw CommandFailure(.unavailable, "Error: unreachable: the expense changed since; its version needs the daemon's history")
        }
        guard let mine = try engine.history(id: entry.id).entries.last(where: { $0.clientId == clientId }) else {
            throw CommandFailure(.failure, "Error: nothing_to_undo: the daemon has no change of this machine to \(UUIDText.lowercased(entry.id)); "
                                 + "run `expense sync` first")
        }
        return plan(mine.version)
    }

    /// `undo --last` of an import: all the rows it created, as one command (``LocalLedger/undoImport(at:)``).
    private func undoImport(_ entry: JournalEntry, at index: Int, ledger: LocalLedger) throws {
        guard let outcome = try ledger.undoImport(at: index) else {
            throw CommandFailure(.failure, "Error: nothing_to_undo: the import of \(Self.timeText(entry.time)) can no longer be undone "
                                 + "(only the latest import keeps its rows' ids); delete its rows one by one")
        }
        console.out("deleted \(outcome.deleted)\(outcome.alreadyGone > 0 ? ", \(outcome.alreadyGone) already gone" : "")\n")
        console.err("Undid the import of \(Self.timeText(entry.time)) (\(entry.rows ?? 0) rows); `expense sync` sends it "
                    + "(a conflict for each row someone changed since).")
    }

    private func finishUndo(_ plan: UndoPlan, ledger: LocalLedger, journalIndex: Int?) throws {
        try ledger.apply(plan, undoing: journalIndex)
        console.out(UUIDText.lowercased(plan.id) + "\n")
        console.err("Undid the \(plan.reverts) of \(UUIDText.lowercased(plan.id).prefix(8)); `expense sync` sends it "
                    + "(a conflict if someone changed the same fields since).")
    }

    /// Reverts a command on budgets, rules and other records (`what` names it for people).
    private func finishUndo(_ steps: [JournalEntry.RecordStep], ledger: LocalLedger, journalIndex: Int?, what: String) throws {
        let taken = try ledger.revert(steps, undoing: journalIndex)
        for id in Set(taken.map(\.id)).sorted(by: { $0.uuidString < $1.uuidString }) { console.out(UUIDText.lowercased(id) + "\n") }
        let records = Set(steps.map(\.id)).count
        console.err("Undid \(what)" + (records > 1 ? " (\(records) records)" : "") + "; `expense sync` sends it "
                    + "(a conflict if someone changed the same fields since).")
    }

    // MARK: - Presentation

    /// The Gregorian calendar in UTC, in which history times are shown.
    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }

    /// `2026-12-01 12:00:00Z`.
    static func timeText(_ seconds: Int64) -> String {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                       from: Date(timeIntervalSince1970: TimeInterval(seconds)))  // not money: seconds
        return String(format: "%04d-%02d-%02d %02d:%02d:%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// The first second of `day` in UTC.
    static func startOf(_ day: CalendarDay) -> Int64 {
        let date = utc.date(from: DateComponents(year: day.year, month: day.month, day: day.day)) ?? Date(timeIntervalSince1970: 0)
        return Int64(date.timeIntervalSince1970.rounded(.down))  // not money: seconds
    }

    /// What a journaled command left: the expense, or each record it changed (`rule 1a2b3c4d deleted`).
    static func describe(_ entry: JournalEntry, money: MoneyDisplay) -> String {
        switch entry.subject {
        case .expense(_, let after):
            return after.deleted ? "deleted" : describe(after.expense, money: money)
        case .records(let steps):
            return steps.map { step in
                "\(step.kind.rawValue) \(UUIDText.lowercased(step.id).prefix(8)) "
                    + (step.after == nil ? "deleted" : step.before == nil ? "set" : "changed")
            }.joined(separator: ", ")
        }
    }

    static func describe(_ expense: Expense, money: MoneyDisplay) -> String {
        "\(expense.date) \(money.text(expense.amount, currency: expense.currency)) \(DisplayText.quoted(expense.category))"
            + (expense.note.isEmpty ? "" : " \(DisplayText.quoted(expense.note))")
    }

    /// A budget's, rule's or setting's field is shown as its JSON (escaped: it is someone else's text). Money
    /// shows its amount charged when it has one (`120.00 CHF charged 128.40 EUR`, in `ledgerCurrency`; in minor
    /// units without it), and its parts when it has some (`84.20 EUR parts household=12.30`).
    static func valueText(_ value: HistoryEntry.Value, money: MoneyDisplay, ledgerCurrency: Currency? = nil) -> String {
        switch value {
        case .money(let amount, let currency, _, let charged, let partsText):
            var text = money.text(amount, currency: currency)
            if charged != 0 { text += " charged " + (ledgerCurrency.map { money.text(charged, currency: $0) } ?? "\(charged)") }
            if let parts = try? ExpenseParts(text: partsText) { text += " parts " + DisplayText.escaped(parts.typedText(currency: currency)) }
            return text
        case .text(let text): return DisplayText.quoted(text)
        case .data(let value?):
            var writer = JSONWriter()
            LedgerDataJSON.write(value, to: &writer)
            return DisplayText.escaped(String(decoding: writer.bytes, as: UTF8.self))
        case .data(nil): return "(none)"
        }
    }

    /// One entry as a line: `v2  2026-12-01 12:00:00Z  laptop  edit  note "lunch" → "team lunch"`.
    static func line(_ entry: HistoryEntry, money: MoneyDisplay, showId: Bool, ledgerCurrency: Currency? = nil) -> String {
        var parts: [String] = []
        for change in entry.changes {
            let to = valueText(change.to, money: money, ledgerCurrency: ledgerCurrency)
            if let from = change.from {
                parts.append(change.field + " " + valueText(from, money: money, ledgerCurrency: ledgerCurrency) + " → " + to)
            } else {
                parts.append(change.field + " " + to)
            }
        }
        let who: String = entry.who.map { DisplayText.quoted($0) } ?? "(unnamed)"
        var line: String = showId ? "" : "v\(entry.version)  "
        line += timeText(entry.time) + "  " + who + "  " + entry.action.rawValue + (entry.kind == .expense ? "" : " " + entry.kind.rawValue)
        if showId { line += "  " + String(UUIDText.lowercased(entry.id).prefix(8)) + " v\(entry.version)" }
        if !parts.isEmpty { line += "  " + parts.joined(separator: ", ") }
        return line
    }

    static func json(_ entries: [HistoryEntry]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for entry in entries { entry.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
