import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
import TestSupport
@testable import ExpenseServer

// Helpers shared by the ledger and store tests (JSON-free builders of push items).

/// Which daemon ledger store a contract test runs against (the client's cache stores are ExpenseClientTests'
/// `CacheStoreKind`).
enum LedgerStoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory, sqlite, postgres
    var description: String { rawValue }

    /// PostgreSQL only when a test cluster is given (or under CI: ``TestSupport/PostgresTestCluster``).
    static var allCases: [LedgerStoreKind] { PostgresTestCluster.enabled ? [.memory, .sqlite, .postgres] : [.memory, .sqlite] }
}

/// A fresh engine over a fresh store of `kind`; its files (or schema) go with this value.
final class TestLedger {
    let engine: LedgerEngine
    /// What a test injects into the store (``StoreFaults``).
    let faults: StoreFaults
    let directory: TemporaryDirectory?
    /// The PostgreSQL case's schema, dropped with this value.
    let postgres: PostgresTestSchema?

    init(_ kind: LedgerStoreKind, currency: Currency = .usd) throws {
        let faults = StoreFaults()
        self.faults = faults
        postgres = kind == .postgres ? try PostgresTestSchema() : nil
        switch kind {
        case .postgres:
            directory = nil
            let store = try postgres.map { try $0.store(currency: currency, faults: faults) }
            engine = LedgerEngine(store: try #require(store), currency: currency)
        case .memory:
            directory = nil
            engine = LedgerEngine(store: InMemoryLedgerStore(faults: faults), currency: currency)
        case .sqlite:
            let temporary = try TemporaryDirectory("ledger-tests")
            directory = temporary
            let store = try SQLiteLedgerStore(path: temporary.file("test.sqlite"), name: "test", currency: currency, faults: faults)
            engine = LedgerEngine(store: store, currency: currency)
        }
    }
}

/// The fields of a put, as they come off the wire.
func fields(amount: Int64? = nil, currency: String? = nil, category: String? = nil, date: String? = nil,
            note: String? = nil) -> [String: JSONValue] {
    var result: [String: JSONValue] = [:]
    if let amount { result["amount"] = .number(JSONNumber(amount)) }
    if let currency { result["currency"] = .string(currency) }
    if let category { result["category"] = .string(category) }
    if let date { result["date"] = .string(date) }
    if let note { result["note"] = .string(note) }
    return result
}

/// A complete create's fields.
func lunch(_ amount: Int64 = 1250, category: String = "food", date: String = "2026-11-30") -> [String: JSONValue] {
    fields(amount: amount, category: category, date: date)
}

func putItem(_ mutationId: Int64, _ id: UUID, base: Int64, _ fields: [String: JSONValue]) -> PushItem {
    PushItem(mutationId: mutationId, decoded: .success(Mutation(mutationId: mutationId, type: .put, id: id,
                                                             baseVersion: base, fields: fields)))
}

func deleteItem(_ mutationId: Int64, _ id: UUID, base: Int64) -> PushItem {
    PushItem(mutationId: mutationId, decoded: .success(Mutation(mutationId: mutationId, type: .delete, id: id,
                                                             baseVersion: base, fields: nil)))
}

/// A client of one engine, straight on ``LedgerEngine`` (no wire, no cache), that numbers its mutations itself;
/// ExpenseClientTests' `TestClient` is a whole `expense` syncing with a daemon.
struct EngineClient {
    let engine: LedgerEngine
    let clientId = UUID()
    var next: Int64 = 1

    init(_ engine: LedgerEngine) { self.engine = engine }

    mutating func push(_ make: (Int64) -> PushItem) throws -> MutationStatus {
        let item = make(next)
        next += 1
        return try engine.push(clientId: clientId, items: [item]).results[0].status
    }

    mutating func put(_ id: UUID, base: Int64, _ fields: [String: JSONValue]) throws -> MutationStatus {
        try push { putItem($0, id, base: base, fields) }
    }

    mutating func delete(_ id: UUID, base: Int64) throws -> MutationStatus {
        try push { deleteItem($0, id, base: base) }
    }
}

extension MutationStatus {
    var reason: String? {
        if case .rejected(let rejection) = self { return rejection.reason }
        return nil
    }
    var isConflict: Bool {
        if case .conflict = self { return true }
        return false
    }
    var conflictRecord: Record? {
        if case .conflict(let current) = self { return current }
        return nil
    }
}

/// Every record of the engine, by pulling from 0.
func allRecords(_ engine: LedgerEngine) throws -> [Record] {
    var records: [Record] = []
    var cursor: Int64 = 0
    while true {
        let page = try engine.pull(PullRequest(since: cursor, limit: 10_000))
        records += page.changes
        cursor = page.cursor
        if !page.more { return records }
    }
}
