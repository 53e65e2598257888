import CommandLineKit
import ExpenseClient
import ExpenseCore
import Foundation

extension ExpenseRunner {
    /// `expense budget set (CATEGORY | --tag TAG) AMOUNT [--currency C] [--period P] [--start D] [--rollover R] [--from D]`.
    func budgetSet() throws {
        // The parser takes both words as optional (a tag budget has no category word): the shape is checked here.
        let words = [command[ExpenseArguments.category], command[ExpenseArguments.amount]].compactMap { $0 }
        let tag = try command.value(ExpenseOptions.budgetTag)
        let target: BudgetTarget, amountText: String
        if let tag {
            guard words.count == 1 else {
                throw usage(words.isEmpty ? "Missing expected argument '<amount>'"
                            : "Give a category or --tag, not both: with --tag, only the amount follows")
            }
            target = .tag(tag)
            amountText = words[0]
        } else {
            guard words.count == 2 else {
                throw usage("Missing expected argument '<\(words.isEmpty ? "category" : "amount")>'")
            }
            target = .category(try ExpenseValidator.validateCategory(words[0]))
            amountText = words[1]
        }
        let ledger = try ledger()
        let data = try LedgerDataCache(store: ledger.store)
        let currency = try command.value(ExpenseFieldOptions.currency) ?? ledger.defaultCurrency()
        let amount = try Money.parse(amountText, currency: currency)
        let period = try command.value(ExpenseOptions.budgetPeriod)
        let rollover = try command.value(ExpenseOptions.rollover)
        let today = try ledgerToday(data)
        let id = Budget.id(target: target, currency: currency)
        var budget: Budget
        if let existing = try data.record(id: id), !existing.deleted {
            budget = try LedgerDataValidator.budget(id: id, fields: existing.fields)
            if let period { budget.period = period }
            if let start = try command.value(ExpenseOptions.start) { budget.start = start }
            if let rollover { budget.rollover = rollover }
            budget.amounts = budget.settingAmount(amount, from: try command.value(ExpenseOptions.from) ?? today)
        } else {
            let start = try command.value(ExpenseOptions.start) ?? CalendarDay(year: today.year, month: today.month, day: 1) ?? today
            budget = Budget(target: target, currency: currency, period: period ?? .month, start: start,
                            rollover: rollover ?? .none, amounts: [BudgetAmount(from: start, amount: amount)])
        }
        try ledger.put(.budget, id: id, fields: budget.fields, journal: "budget set")  // set again: also the person's answer to a conflict ("mine")
        console.out(UUIDText.lowercased(id) + "\n")
    }

    /// `expense budget list [--json]`.
    func budgetList() throws {
        let ledger = try ledger(readOnly: true)
        let budgets = try Self.budgets(LedgerDataCache(store: ledger.store))
        if command[ExpenseOptions.json] {
            console.out(BudgetJSON.list(budgets))
            return
        }
        guard !budgets.isEmpty else { return console.err("No budgets.") }
        let conflicted = Set(try LedgerDataCache(store: ledger.store).conflictDetails().map(\.id))
        let money = moneyDisplay(ledger)
        let today = try ledgerToday(LedgerDataCache(store: ledger.store))
        for budget in budgets {
            let current = budget.amount(periodEnd: BudgetPeriods(budget).period(containing: today)?.end ?? budget.start)
            console.out("\(TerminalWidth.padded(TerminalWidth.truncated(budget.target.name, to: 30), to: 30))  \(budget.currency.code)  "
                        + "\(money.figure(current, currency: budget.currency)) per \(budget.period.rawValue) from \(budget.start), "
                        + "rollover \(budget.rollover.rawValue)" + (conflicted.contains(budget.id) ? "  CONFLICT" : "") + "\n")
        }
        if !conflicted.isEmpty {
            console.err("A budget marked CONFLICT was changed on another machine too: it shows the daemon's side; "
                        + "`expense budget set` it again to keep yours.")
        }
    }

    /// `expense budget remove (CATEGORY | --tag TAG) [--currency C]`.
    func budgetRemove() throws {
        let target: BudgetTarget
        switch (command[ExpenseArguments.category], try command.value(ExpenseOptions.budgetTag)) {
        case (let category?, nil): target = .category(try ExpenseValidator.validateCategory(category))
        case (nil, let tag?): target = .tag(tag)
        case (nil, nil): throw usage("Missing expected argument '<category>' (or --tag)")
        case (_?, _?): throw usage("Give a category or --tag, not both")
        }
        let ledger = try ledger()
        let currency = try command.value(ExpenseFieldOptions.currency) ?? ledger.defaultCurrency()
        guard try ledger.deleteRecord(id: Budget.id(target: target, currency: currency), journal: "budget remove") else {
            throw CommandFailure(.failure, "Error: not_found: no budget for \(DisplayText.quoted(target.name)) in \(currency.code)")
        }
        console.err("Removed the budget for \(DisplayText.quoted(target.name)) in \(currency.code).")
    }

    /// `expense budget status [--on DATE] [--member M] [--in CODE [--at W]] [--json]`.
    func budgetStatus() throws {
        let ledger = try readingLedger()
        let data = try LedgerDataCache(store: ledger.store)
        let on = try command.value(ExpenseOptions.on) ?? ledgerToday(data)
        if var converter = try currencyConverter(ledger) {
            let budgets = try Self.convertedStatuses(Self.budgets(data), on: on, ledger: ledger, member: chosenMember(ledger),
                                                     converter: &converter)
            if command[ExpenseOptions.json] {
                console.out(BudgetJSON.status(budgets, converter: converter))
            } else if budgets.entries.isEmpty && budgets.unconverted.isEmpty {
                console.err("No budget covers \(on).")
            } else {
                let money = moneyDisplay(ledger)
                console.out(BudgetReport.render(budgets.entries, chart: console.isTerminal, money: money))
                for line in unconvertedLines(converter.unconverted, into: converter.target, money: money) + unconvertedBudgetLines(budgets, into: converter.target) {
                    console.out(line + "\n")
                }
            }
            tellUnconverted(converter.unconverted, into: converter.target)
            return tellUnconvertedBudgets(budgets, into: converter.target)
        }
        let statuses = try Self.statuses(Self.budgets(data), on: on, ledger: ledger, member: chosenMember(ledger))
        if command[ExpenseOptions.json] {
            console.out(BudgetJSON.status(statuses))
            return
        }
        guard !statuses.isEmpty else { return console.err("No budget covers \(on).") }
        console.out(BudgetReport.render(statuses, chart: console.isTerminal, money: moneyDisplay(ledger)))
    }

    /// Warns on standard error for every budget of one of `targets` (every budget when `nil`) in `currency` that
    /// is over in the period containing `day`. Never throws and never changes the exit code: a budget is advice.
    func warnOverBudget(_ ledger: LocalLedger, targets: [BudgetTarget]? = nil, currency: Currency? = nil, on day: CalendarDay? = nil) {
        guard let data = try? LedgerDataCache(store: ledger.store), let budgets = try? Self.budgets(data) else { return }
        let chosen = budgets.filter { budget in
            (targets.map { $0.contains { Self.same($0, budget.target) } } ?? true) && (currency.map { $0 == budget.currency } ?? true)
        }
        guard !chosen.isEmpty, let on = day ?? (try? ledgerToday(data)),
              let statuses = try? Self.statuses(chosen, on: on, ledger: ledger) else { return }
        let money = moneyDisplay(ledger)
        for status in statuses where status.status.isOver {
            console.err("Warning: the \(DisplayText.quoted(status.budget.target.name)) budget is over by "
                        + money.text(-status.status.left, currency: status.budget.currency)
                        + " for \(status.status.period.start) to \(status.status.period.end).")
        }
    }

    /// `expense config set timezone ZONE|local`: the ledger's time zone, a setting record synced to every machine
    /// (Protocol.md §10.5); `local` removes it (each machine then uses its own zone).
    func setLedgerTimeZone(_ value: String) throws {
        let ledger = try ledger()
        let id = LedgerSetting.id(.timezone)
        if value == "local" {
            _ = try ledger.deleteRecord(id: id)
            return
        }
        guard LedgerSetting.timeZone(value) != nil else {
            throw CommandFailure(.dataError, "Error: invalid_value: '\(DisplayText.escaped(value))' is not a time zone identifier "
                                 + "(such as Europe/Berlin or America/New_York), or local")
        }
        try ledger.put(.setting, id: id, fields: LedgerSetting(name: .timezone, value: value).fields)
    }

    /// The ledger's configured time zone name, `nil` when none is set.
    func ledgerTimeZoneSetting(_ ledger: LocalLedger) throws -> String? {
        guard let record = try LedgerDataCache(store: ledger.store).record(id: LedgerSetting.id(.timezone)), !record.deleted,
              case .text(let name)? = record.fields["value"] else { return nil }
        return name
    }

    /// "Today" for budgets and rules: the calendar day in the ledger's configured time zone, else the local one.
    func ledgerToday(_ data: LedgerDataCache) throws -> CalendarDay {
        try data.today(now: now())
    }

    /// The clock (`EXPENSE_NOW`, seconds since 1970, for tests of "today" on both sides of midnight).
    func now() -> Date {
        environment["EXPENSE_NOW"].flatMap(TimeInterval.init).map { Date(timeIntervalSince1970: $0) } ?? Date()
    }

    static func budgets(_ data: LedgerDataCache) throws -> [Budget] {
        try data.records(.budget).compactMap { try? LedgerDataValidator.budget(id: $0.id, fields: $0.fields) }
            .sorted { (Self.sortKey($0.target), $0.currency.code) < (Self.sortKey($1.target), $1.currency.code) }
    }

    /// Category budgets first, then tag budgets, each by its text.
    private static func sortKey(_ target: BudgetTarget) -> String {
        switch target {
        case .category(let category): "0" + category
        case .tag(let tag): "1" + tag
        }
    }

    /// Whether two targets are one: the same kind, and the same text as bytes (``ExpenseCore/ExactText``).
    private static func same(_ a: BudgetTarget, _ b: BudgetTarget) -> Bool {
        switch (a, b) {
        case (.category(let x), .category(let y)), (.tag(let x), .tag(let y)): ExactText.same(x, y)
        default: false
        }
    }

    /// Each budget's status on `day`; with `member`, counting only their part (``ExpenseCore/Expense/part(of:)``).
    static func statuses(_ budgets: [Budget], on day: CalendarDay, ledger: LocalLedger, member: UUID? = nil) throws -> [BudgetReport.Entry] {
        try budgets.compactMap { budget in
            guard let period = BudgetPeriods(budget).period(containing: day) else { return nil }
            // Every category: a part of an expense of another category may be the budget's (BudgetStatus picks).
            var expenses = try ledger.store.expenses(matching: ExpenseFilter(from: budget.start, to: period.end))
            if let member { expenses = expenses.compactMap { $0.part(of: member) } }
            return try BudgetStatus.compute(budget, on: day, expenses: expenses).map { BudgetReport.Entry(budget: budget, status: $0) }
        }
    }
}
