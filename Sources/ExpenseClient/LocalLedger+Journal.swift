import ExpenseCore
import ExpenseProtocol
import Foundation

/// This machine's journal of local commands (`expense undo --last`): kept in the store's meta table, the last
/// ``JournalEntry/capacity`` commands, each written in the same transaction as the change it describes, so
/// the journal never names a change that was not stored nor misses one that was.
extension LocalLedger {
    /// The journal, oldest first.
    package func journal() throws -> [JournalEntry] {
        JournalEntry.decode(try store.metaValue(.undoJournal))
    }

    func appendJournal(_ entry: JournalEntry, in transaction: any StoreTransaction) throws {
        var entries = JournalEntry.decode(try transaction.metaValue(.undoJournal))
        entries.append(entry)
        if entries.count > JournalEntry.capacity {
            let dropped = entries.prefix(entries.count - JournalEntry.capacity)
            entries.removeFirst(dropped.count)
            // An import leaving the journal takes its ids along (read only then: they may be megabytes).
            if dropped.contains(where: { $0.command == "import" }),
               let ids = ImportJournal(try transaction.metaValue(.lastImport)), dropped.contains(where: ids.belongs(to:)) {
                try transaction.setMetaValue(nil, for: .lastImport)
            }
        }
        try transaction.setMetaValue(JournalEntry.encode(entries), for: .undoJournal)
    }

    /// Journals an import that created `expenses` (in its transaction): one entry, the ids apart (``ImportJournal``).
    func journalImport(_ expenses: [Expense], in transaction: any StoreTransaction) throws {
        guard let first = expenses.first else { return }
        let time = Self.now
        try transaction.setMetaValue(ImportJournal(time: time, ids: expenses.map(\.id)).encode(), for: .lastImport)
        try appendJournal(JournalEntry(command: "import", id: first.id, before: nil,
                                       after: JournalEntry.State(expense: first, deleted: false), time: time, rows: expenses.count),
                          in: transaction)
    }

    static func state(_ record: LocalRecord) -> JournalEntry.State {
        JournalEntry.State(expense: record.expense, deleted: record.deleted)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }  // not money: seconds

    /// ``add(_:)`` with a journal entry, in one transaction.
    @discardableResult
    package func journaledAdd(_ draft: ExpenseDraft) throws -> Expense {
        try ensureWritable()
        var draft = draft
        if draft.id == nil { draft.id = .value(UUID()) }
        let expense = try ExpenseValidator.validate(draft)
        try store.write { transaction in
            try insert([expense], in: transaction)
            try appendJournal(JournalEntry(command: "add", id: expense.id, before: nil,
                                           after: JournalEntry.State(expense: expense, deleted: false), time: Self.now),
                              in: transaction)
        }
        return expense
    }

    /// ``edit(_:changes:)`` with a journal entry, in one transaction.
    @discardableResult
    package func journaledEdit(_ record: LocalRecord, changes: ExpenseDraft) throws -> Expense {
        try edit(record, changes: changes) { updated, transaction in
            try appendJournal(JournalEntry(command: "edit", id: record.id, before: Self.state(record),
                                           after: JournalEntry.State(expense: updated, deleted: false), time: Self.now),
                              in: transaction)
        }
    }

    /// ``delete(_:)`` with a journal entry, in one transaction.
    package func journaledDelete(_ record: LocalRecord) throws {
        try delete(record) { transaction in
            try appendJournal(JournalEntry(command: "delete", id: record.id, before: Self.state(record),
                                           after: JournalEntry.State(expense: record.expense, deleted: true), time: Self.now),
                              in: transaction)
        }
    }
}
