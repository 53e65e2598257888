import CommandLineKit
import ExpenseClient
import ExpenseCore
import ExpenseProtocol
import Foundation
import SystemKit

extension CommandRunner {
    /// `expense remote set HOST:PORT --ledger NAME (--token-file FILE | --token TOKEN)`.
    func remoteSet() throws {
        let server = command.argument("server") ?? ""
        let address = RemoteTLS.split(server).address
        guard address.contains(":"), let port = address.split(separator: ":").last, UInt16(port) != nil else {
            throw usage("The server must be tls://HOST:PORT or HOST:PORT, such as tls://expense.example:7468, not '\(server)'")
        }
        var tls = RemoteTLS(caFile: command.option("ca"), trustFirst: command.flag("trust-first"),
                            insecurePlaintext: command.flag("insecure-plaintext"))
        if let pin = command.option("pin") {
            guard let fingerprint = RemoteTLS.fingerprint(parsing: pin) else {
                throw usage("--pin takes sha256:HEX (64 hex digits, as `expensed tls init` prints), not '\(pin)'")
            }
            tls.pin = fingerprint
        }
        if !RemoteTLS.split(server).tls, tls.caFile != nil || tls.pin != nil || tls.trustFirst {
            throw usage("--ca, --pin and --trust-first need a tls://HOST:PORT server")
        }
        guard let ledgerName = command.option("ledger"), !ledgerName.isEmpty else { throw usage("--ledger NAME is required") }
        let token: String
        switch (command.option("token-file"), command.option("token")) {
        case (let file?, nil):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure(.ioError, "Error: cannot read the token file \(file)")
            }
            token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        case (nil, let given?):
            token = given
        default:
            throw usage("Give exactly one of --token-file FILE and --token TOKEN")
        }
        guard !token.isEmpty else { throw usage("The token is empty") }
        let store = try ledger().store
        let configuration = RemoteConfiguration(server: server, ledger: ledgerName, token: token, tls: tls,
                                                tlsSettingsPath: RemoteTLS.path(in: home))
        try tls.save(home: home)
        // A cache holds one ledger: pointing it at another would mix the two ledgers' records. Any address that
        // serves the same ledger id is fine (Protocol.md §5.7).
        var engine = SyncEngine(ledger: LocalLedger(store: store), remote: configuration)
        engine.attempts = 1
        engine.connectTimeout = connectTimeout
        if case .unverified(let reason) = try engine.checkRemote() {
            console.err("Warning: could not ask \(server) which ledger it serves (\(reason)); the next `expense sync` "
                        + "checks it before changing anything.")
        }
        try configuration.save(home: home, store: store)
        console.err("Remote set: \(server), ledger \(ledgerName) (token stored in \(RemoteConfiguration.tokenPath(in: home)), mode 0600).")
    }

    /// `expense remote show`.
    func remoteShow() throws {
        let store = try ledger(readOnly: true).store
        guard let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: store) else {
            throw CommandFailure(.failure, "Error: no_remote: no remote is set; run `expense remote set HOST:PORT --ledger NAME --token-file FILE`")
        }
        console.out("server \(remote.server)\nledger \(remote.ledger)\n")
    }

    /// The remote, or a clear error.
    func remote(_ ledger: LocalLedger) throws -> RemoteConfiguration {
        guard let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: ledger.store) else {
            throw SyncError.notConfigured("no remote is set; run `expense remote set HOST:PORT --ledger NAME --token-file FILE` "
                                          + "or set EXPENSE_SERVER, EXPENSE_LEDGER and EXPENSE_TOKEN")
        }
        return remote
    }

    /// `expense sync [--json] [--watch]`.
    func sync() throws {
        // Taken before the cache is opened and held until this command ends (the watcher: until it stops);
        // another sync of this cache exits 75 having touched nothing.
        let syncLock = try SyncLock.acquire(for: home)
        defer { syncLock.release() }
        let ledger = try ledger()
        var engine = SyncEngine(ledger: ledger, remote: try remote(ledger))
        if environment["EXPENSE_SYNC_ATTEMPTS"].flatMap(Int.init) != nil {
            engine.attempts = environment["EXPENSE_SYNC_ATTEMPTS"].flatMap(Int.init) ?? engine.attempts
        }
        engine.log = { [console, verbose = ExpenseCLI.isVerbose(environment)] in if verbose { console.err($0) } }
        engine.connectTimeout = connectTimeout
        // On a terminal only: pipes, files and tests see nothing on standard error but errors.
        if let display = SyncProgressDisplay.forStandardError() { engine.progress = display.show }
        if command.flag("watch") {
            try watch(engine)
            return
        }
        let report = try engine.sync()
        try finish(report)
    }

    /// Prints the report and fails with 65 (a rejection is queued) or 3 (conflicts remain).
    private func finish(_ report: SyncEngine.Report) throws {
        if command.flag("json") {
            // The keys and their meaning are fixed (README, "Sync"): `conflicts` counts this sync's new conflicts
            // and `rejected` the rejections still queued, as they always have; the `new…`/`open…` keys say which.
            console.out(#"{"pushed":\#(report.pushed),"pulled":\#(report.pulled),"conflicts":\#(report.newConflicts),"#
                + #""openConflicts":\#(report.openConflicts),"rejected":\#(report.openRejections),"pending":\#(report.pending),"#
                + #""cursor":\#(report.cursor),"newConflicts":\#(report.newConflicts),"newRejections":\#(report.rejected),"#
                + #""openRejections":\#(report.openRejections)}"# + "\n")
        } else if report.pushed == 0, report.pulled == 0, report.newConflicts == 0, report.openConflicts == 0, report.openRejections == 0 {
            console.out("up to date\n")
        } else {
            console.out("pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.newConflicts)\n")
        }
        // Budgets, rules and settings (Protocol.md §10) on standard error, so the lines above stay as they were.
        if let data = report.data, data.sent + data.pulled + data.conflicts + data.rejected > 0 {
            console.err("Budgets and settings: sent \(data.sent), pulled \(data.pulled), conflicts \(data.conflicts)"
                        + (data.rejected > 0 ? ", rejected \(data.rejected)" : "") + "."
                        + (data.conflicts > 0 ? " See `expense budget list`." : ""))
        }
        if report.openRejections > 0 {
            let plural = report.openRejections == 1 ? "" : "s"
            var lines = ["Error: \(report.openRejections) change\(plural) rejected and kept; see `expense status`"]
            if report.tooLarge > 0 {
                lines.append("  too_large: \(report.tooLarge) change\(report.tooLarge == 1 ? " does" : "s do") not fit in the daemon's line "
                             + "(expensed --max-line) and \(report.tooLarge == 1 ? "was" : "were") not sent; the others synced")
            }
            if report.openRejections > report.tooLarge {
                lines.append("  the daemon rejected \(report.openRejections - report.tooLarge): edit them to fix them, "
                             + "or drop them with `expense discard --rejected`")
            }
            throw CommandFailure(.dataError, lines: lines)
        }
        if report.openConflicts > 0 {
            throw CommandFailure(.conflictsRemain, "\(report.openConflicts) conflict\(report.openConflicts == 1 ? "" : "s") to resolve; see `expense conflicts`")
        }
    }

    /// `expense sync --watch`: sync, then stay connected; pull on each `changed` and push local changes, reconnecting
    /// with backoff. SIGINT or SIGTERM stops it after the step in progress: exit 0.
    private func watch(_ engine: SyncEngine) throws {
        // Without the handler a signal ends the process at once, as for any other command.
        try? StopSignal.install()
        var wait: Duration = .milliseconds(200)
        while StopSignal.requested == nil {
            do {
                let connection = try engine.connect()
                defer { connection.close() }
                var report = SyncEngine.Report()
                try engine.run(on: connection, report: &report)
                engine.progress?(.finished)
                // A change that landed between that sync and `watch` gets no notification: the result tells it.
                var watchHead: Int64? = try connection.call(WatchRequest()).cursor
                console.err("watching \(engine.remote.server) ledger \(engine.remote.ledger) (Ctrl-C stops)")
                reportLine(report)
                wait = .milliseconds(200)
                var quietSince = ContinuousClock.now
                while StopSignal.requested == nil {
                    // Local changes made meanwhile go out within a second.
                    var head = try watchHead ?? connection.waitForChange(timeout: .seconds(1))
                    watchHead = nil
                    if head == nil, quietSince.duration(to: .now) >= pingInterval {
                        // Keeps the connection open under `expensed --idle-timeout`, finds a dead one (no answer:
                        // reconnect), and catches up should a notification ever be missed.
                        head = try connection.call(PingRequest()).cursor
                        quietSince = .now
                    }
                    // A `changed` for what was already pulled (this watcher's own push) needs no round.
                    let behind = try head.map { $0 > (try engine.ledger.pullCursor()) } ?? false
                    guard try behind || engine.ledger.hasUnsent(), StopSignal.requested == nil else { continue }
                    var round = SyncEngine.Report()
                    try engine.run(on: connection, report: &round)
                    engine.progress?(.finished)
                    reportLine(round)
                    quietSince = .now
                }
            } catch let error as SyncError {
                engine.progress?(.finished)
                if case .protocolError = error { try? engine.ledger.recordSyncFailure(error.description) }
                let reason: String
                switch error {
                case .unreachable(let text), .unanswered(let text): reason = text
                default: throw error
                }
                guard StopSignal.requested == nil else { break }
                console.err("disconnected (\(reason)); reconnecting in \(wait)")
                StopSignal.pause(wait)
                wait = min(wait * 2, .seconds(5))
            }
        }
        console.err("stopped")
    }

    /// The most one attempt waits for the connection and `hello`'s answer (`EXPENSE_CONNECT_TIMEOUT` seconds,
    /// validated by ``ExpenseCLI/environmentProblem(_:)``; default 10).
    var connectTimeout: Duration {
        environment["EXPENSE_CONNECT_TIMEOUT"].flatMap(Double.init) // not money: seconds
            .map { .milliseconds(Int64(($0 * 1000).rounded())) } ?? SyncConnection.defaultConnectTimeout
    }

    /// How long a watching connection stays quiet before a `ping` (`EXPENSE_WATCH_PING` seconds; default 15).
    private var pingInterval: Duration {
        .milliseconds(Int64((environment["EXPENSE_WATCH_PING"].flatMap(Double.init).map { max($0, 0.1) } ?? 15) * 1000))
    }

    private func reportLine(_ report: SyncEngine.Report) {
        guard report.pushed + report.pulled + report.newConflicts > 0 else { return }
        console.out("pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.newConflicts)\n")
    }

    /// `expense status [--json]`.
    func status() throws {
        let ledger = try ledger(readOnly: true)
        let store = ledger.store
        let remote = try RemoteConfiguration.resolve(environment: environment, home: home, store: store)
        let queue = try store.pendingMutations(limit: Int.max)
        let conflicts = try store.conflicts()
        let cursor = try ledger.pullCursor()
        let lastSync = try store.metaValue(.lastSyncTime)
        let lastFailure = try ledger.lastSyncFailure()
        let role = try ledger.tokenRole()
        let tokenName = try ledger.tokenName()
        warnOverBudget(ledger)
        if command.flag("json") {
            let body: [String: Any] = [
                "server": remote?.server ?? NSNull(), "ledger": remote?.ledger ?? NSNull(), "cursor": cursor,
                "lastSync": lastSync ?? NSNull(), "lastFailure": lastFailure ?? NSNull(), "pending": queue.count, "conflicts": conflicts.count,
                "rejected": queue.count { $0.state == .rejected },
                "changes": queue.map { entry in
                    ["id": UUIDText.lowercased(entry.id), "type": entry.type.rawValue, "state": entry.state.rawValue,
                     "baseVersion": entry.baseVersion, "reason": entry.rejection?.reason ?? NSNull()] as [String: Any]
                },
                "conflictIds": conflicts.map { UUIDText.lowercased($0.id) },
                // As the last `hello` reported them (null before the first sync, or from a daemon older than roles).
                "role": role?.rawValue ?? NSNull(), "tokenName": tokenName ?? NSNull(),
            ]
            let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .prettyPrinted])
            console.out(String(decoding: data, as: UTF8.self) + "\n")
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
        text += "conflicts:  \(conflicts.count)\n"
        if !queue.isEmpty {
            text += "\nChanges not yet synced:\n"
            for entry in queue.prefix(50) {
                let short = String(UUIDText.lowercased(entry.id).prefix(8))
                let what = entry.type == .delete ? "deleted" : (entry.baseVersion == 0 ? "new" : "modified")
                var line = "  \(what.padding(toLength: 9, withPad: " ", startingAt: 0)) \(short)"
                if let fields = fieldNames(entry.fields), entry.type == .put, entry.baseVersion > 0 { line += "  (\(fields))" }
                if let rejection = entry.rejection { line += "  REJECTED \(rejection.reason): \(rejection.message)" }
                text += line + "\n"
            }
            if queue.count > 50 { text += "  … and \(queue.count - 50) more\n" }
        }
        if !conflicts.isEmpty {
            text += "\nConflicts (see `expense conflicts`, settle with `expense resolve ID --mine|--theirs|--edit`):\n"
            for conflict in conflicts {
                text += "  both changed  \(String(UUIDText.lowercased(conflict.id).prefix(8)))  \(conflictKind(conflict))\n"
            }
        }
        console.out(text)
    }

    private func fieldNames(_ fields: ExpenseDraft) -> String? {
        let names = [("amount", fields.amount != nil), ("currency", fields.currency != nil), ("category", fields.category != nil),
                     ("date", fields.date != nil), ("note", fields.note != nil)].filter(\.1).map(\.0)
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    private func conflictKind(_ conflict: Conflict) -> String { conflict.kind.label }

    /// `expense conflicts [--json]`.
    func listConflicts() throws {
        let conflicts = try ledger(readOnly: true).store.conflicts()
        if command.flag("json") {
            let body = conflicts.map { conflict -> [String: Any] in
                let theirs = conflict.theirs.expense
                var mine: [String: Any] = ["type": conflict.mine.rawValue, "baseVersion": conflict.mineBaseVersion]
                let fields = conflict.mineFields
                if let value = fields.amount { mine["amount"] = value }
                if let value = fields.currency { mine["currency"] = value }
                if let value = fields.category { mine["category"] = value }
                if let value = fields.date { mine["date"] = value }
                if let value = fields.note { mine["note"] = value }
                return ["id": UUIDText.lowercased(conflict.id), "kind": conflictKind(conflict), "mine": mine,
                        "theirs": ["amount": theirs.amount, "currency": theirs.currency.code, "category": theirs.category,
                                   "date": theirs.date.description, "note": theirs.note, "version": conflict.theirs.version,
                                   "deleted": conflict.theirs.deleted] as [String: Any]]
            }
            let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .prettyPrinted])
            console.out(String(decoding: data, as: UTF8.self) + "\n")
            return
        }
        guard !conflicts.isEmpty else {
            console.err("No conflicts.")
            return
        }
        var text = ""
        for conflict in conflicts {
            text += "\(UUIDText.lowercased(conflict.id))  \(conflictKind(conflict))\n"
            text += "  FIELD     MINE                           THEIRS\n"
            for line in conflict.differences {
                text += "  " + line.field.padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                    + TerminalWidth.padded(ExpenseTable.oneLine(line.mine, width: 30), to: 30) + " "
                    + ExpenseTable.oneLine(line.theirs, width: 30) + "\n"
            }
        }
        console.out(text)
    }

    /// `expense resolve ID --mine | --theirs | --edit [--amount …]`.
    func resolve() throws {
        let choices = ["mine", "theirs", "edit"].filter { command.flag($0) }
        guard choices.count == 1 else { throw usage("Give exactly one of --mine, --theirs, --edit") }
        let fieldOptions = ["amount", "category", "date", "note", "currency"]
        let given = fieldOptions.filter { command.option($0) != nil }
        if choices[0] != "edit", !given.isEmpty { throw usage("--\(given[0]) needs --edit") }
        let ledger = try ledger()
        let conflict: Conflict
        do {
            conflict = try ledger.conflict(command.argument("id") ?? "")
        } catch StoreError.noConflict(let prefix) where choices[0] == "theirs" {
            // A change the daemon rejected is settled like a conflict: --theirs drops it (`expense discard`).
            do {
                try resolveRejection(prefix, ledger)
            } catch DiscardError.nothingPending {
                throw StoreError.noConflict(prefix)
            }
            return
        }
        let resolution: Resolution
        switch choices[0] {
        case "mine": resolution = .mine
        case "theirs": resolution = .theirs
        default:
            guard !given.isEmpty else { throw usage("--edit needs at least one of --amount, --category, --date, --note, --currency") }
            if command.option("currency") != nil, command.option("amount") == nil {
                throw usage("--currency needs --amount too, since the same digits mean different money in another currency")
            }
            var fields = ExpenseDraft(category: command.option("category"), date: command.option("date"), note: command.option("note"))
            if let amountText = command.option("amount") {
                let currency = try command.option("currency").map(ExpenseValidator.validateCurrency) ?? conflict.theirs.expense.currency
                fields.currency = currency.code
                fields.amount = try Money.parse(amountText, currency: currency)
            }
            resolution = .edit(fields)
        }
        try ledger.resolve(conflict, resolution)
        console.out(UUIDText.lowercased(conflict.id) + "\n")
        console.err("Resolved (\(choices[0])); run `expense sync` to send it.")
    }
}
