// libFuzzer target `json-cache`: the JSON file store's reader (`EXPENSE_STORE=json`, `$EXPENSE_HOME/cache.json`),
// JSONFileExpenseStore.decode(_:path:), fed the input as the file's bytes: formats 1 and 2, each expense and
// server copy through the core's validateStored, the queue's types, ids, states and positions, conflicts, meta.
//
// Checked on every input, besides never crashing (a damaged or newer file is a StoreError, never a trap):
// - decoding the same bytes twice gives the same state (nothing depends on the process's hashing);
// - a decoded state written back by the store's own writer (JSONFileExpenseStore.encode, what every commit
//   writes) decodes to the same state: rows, totals, server copies, queue (positions, states, rejections,
//   ifAbsent), nextOrder, nextPosition, conflicts and meta; and that file written again decodes the same;
// - the store's reads over the decoded state answer (live rows by prefix), and the decoded state takes the next
//   write a command makes (StateTransaction: a new expense stored, its change queued) without trapping.
// Built by Scripts/fuzz together with ExpenseCore, ExpenseProtocol, the store files of ExpenseClient (the JSON
// store, StoreState and what it holds, and the ExpenseStore protocol with what it names), three SystemKit files
// (the atomic write the store links to) and FuzzFailure.swift as one module.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let path = "/fuzz/cache.json"
    let state: StoreState
    do { state = try JSONFileExpenseStore.decode(bytes, path: path) } catch {
        fuzzCheck(error is StoreError, "decode threw \(type(of: error)), not a StoreError: \(error)", input: bytes)
        _ = "\(error)"
        return 0
    }
    fuzzCheck((try? JSONFileExpenseStore.decode(bytes, path: path)) == state, "the same bytes decode to another state",
              input: bytes)
    _ = state.live(idPrefix: "", limit: 16)
    takeWrite(state)

    let written: Data
    do { written = try JSONFileExpenseStore.encode(state) } catch {
        fuzzFailure("a decoded state cannot be written back: \(error)", input: bytes)
    }
    let reread: StoreState
    do { reread = try JSONFileExpenseStore.decode(written, path: path) } catch {
        fuzzFailure("the file written back is refused: \(error)\nwritten: \(String(decoding: written, as: UTF8.self))",
                    input: bytes)
    }
    if reread != state {
        fuzzFailure("the file written back decodes to another state\nbefore: \(describe(state))\nafter:  \(describe(reread))",
                    input: bytes)
    }
    let again = try? JSONFileExpenseStore.encode(reread)
    fuzzCheck(again.flatMap { try? JSONFileExpenseStore.decode($0, path: path) } == state,
              "the file written a second time decodes to another state", input: bytes)
    return 0
}

/// The parts of a state, one a line, for a finding's message.
private func describe(_ state: StoreState) -> String {
    """
    rows \(state.rows.values.sorted { $0.order < $1.order })
      totals \(state.totals) nextOrder \(state.nextOrder) nextPosition \(state.nextPosition)
      serverCopies \(state.serverCopies.values.sorted { $0.seq < $1.seq })
      pending \(state.pending)
      conflicts \(state.conflicts)
      meta \(state.meta)
    """
}

/// What `expense add` does to the loaded state: stores a new expense and queues its put (StateTransaction).
private func takeWrite(_ state: StoreState) {
    guard let day = CalendarDay(year: 2026, month: 12, day: 4) else { return }
    let id = UUID(uuid: (0xA1, 0xB2, 0xC3, 0xD4, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1))
    let expense = Expense(id: id, amount: 1250, currency: .usd, category: "fuzz", date: day, note: "")
    let transaction = StateTransaction(state)
    try? transaction.putRecord(LocalRecord(expense: expense))
    _ = try? transaction.appendPending(PendingMutation(type: .put, id: id, baseVersion: 0))
}
