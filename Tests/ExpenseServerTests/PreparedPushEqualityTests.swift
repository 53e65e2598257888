import ExpenseCore
import ExpenseProtocol
import Foundation
import SQLite
import Synchronization
import Testing
import TestSupport
@testable import ExpenseServer

/// A push prepared on the thread that decoded it (``MutationRules/prepare(_:)``: a put's values validated and a
/// create's history changes written before the ledger's thread takes it) is answered and stored exactly as the
/// general path, which works all of it out on the ledger's thread (that one thread bounds both push figures, so what
/// depends on the mutations alone is done before it).
@Suite(.offTheCooperativePool) struct PreparedPushEqualityTests {
    static let time: Int64 = 1_700_000_000

    @Test(arguments: [UInt64(1), 2, 3])
    func aPreparedPushAnswersAndStoresWhatTheGeneralPathDoes(seed: UInt64) throws {
        let directory = try TemporaryDirectory("prepared-push")
        defer { directory.remove() }
        // A ledger whose currency is not the corpus's usual one, so a create that sends none shows which was used.
        let ledgerCurrency = try #require(Currency(code: "EUR"))
        func engine(_ name: String) throws -> LedgerEngine {
            let store = try SQLiteLedgerStore(path: directory.file(name + ".sqlite"), name: name, currency: ledgerCurrency)
            let engine = LedgerEngine(store: store, currency: ledgerCurrency)
            engine.clock = { Self.time }
            return engine
        }
        let general = try engine("general"), prepared = try engine("prepared")
        var corpus = PushCorpus(seed: seed)
        let pushes = try corpus.pushes()
        var preparedPuts = 0, preparedCreations = 0, preparedRejections = 0
        var statuses: [MutationStatus] = []
        // Several group sizes, the same for both, so pushes of one group meet each other's writes.
        var start = 0, groupSize = 1
        while start < pushes.count {
            let group = Array(pushes[start..<min(start + groupSize, pushes.count)])
            let preparedGroup = group.map { (clientId: $0.clientId, items: prepared.rules.prepare($0.items), who: $0.who) }
            for item in preparedGroup.flatMap(\.items) {
                guard let put = item.put else { continue }
                preparedPuts += 1
                if put.isCreate { preparedCreations += 1 }
                if case .failure = put.values { preparedRejections += 1 }
            }
            let expected = try general.apply(group)
            let answered = try prepared.apply(prepared: preparedGroup)
            #expect(answered == expected, "seed \(seed), pushes \(start)..<\(start + group.count)")
            #expect(Self.answerBytes(answered) == Self.answerBytes(expected))
            statuses += expected.flatMap { $0.results.map(\.status) }
            start += group.count
            groupSize = groupSize % 7 + 1
        }
        // Both ledgers hold the same rows, byte for byte.
        for table in ["records", "history", "outcome_runs", "clients"] {
            let expectedRows = try Self.rows(of: table, in: directory.file("general.sqlite"))
            #expect(try Self.rows(of: table, in: directory.file("prepared.sqlite")) == expectedRows, "seed \(seed), \(table)")
            #expect(!expectedRows.isEmpty)
        }
        // The corpus took the prepared path (a stubbed `prepare` fails here), with rejections and creations both.
        #expect(preparedPuts > pushes.count && preparedCreations > 100 && preparedRejections > 20)
        let reasons = Set(statuses.compactMap(\.reason))
        #expect(reasons.isSuperset(of: ["invalid_amount", "invalid_currency", "invalid_text", "invalid_date",
                                        "unknown_field", "empty_category", "amount_overflow", "mutation_gap",
                                        "not_found", "invalid_id", "invalid_base_version", "invalid_mutation"]),
                "\(reasons.sorted())")
    }

    /// New records (whose rows imply their create entries: no `history` row) go through a statement with their
    /// constant columns written as constants (``SQLiteLedgerRows/recordCreations``): the same rows, byte for
    /// byte, as the general statement writes with every column bound; the other changes' `history` rows too.
    @Test func creationsWrittenWithConstantsAreTheRowsTheGeneralStatementsWrite() throws {
        let directory = try TemporaryDirectory("creation-rows")
        defer { directory.remove() }
        func engine(_ name: String, constants: Bool) throws -> LedgerEngine {
            let store = try SQLiteLedgerStore(path: directory.file(name + ".sqlite"), name: name, currency: .usd,
                                              writesCreationsWithConstants: constants)
            let engine = LedgerEngine(store: store, currency: .usd)
            engine.clock = { Self.time }
            return engine
        }
        let constants = try engine("constants", constants: true), general = try engine("general", constants: false)
        var corpus = PushCorpus(seed: 4)
        let pushes = try corpus.pushes()
        for start in stride(from: 0, to: pushes.count, by: 5) {
            let group = Array(pushes[start..<min(start + 5, pushes.count)])
            #expect(try constants.apply(group) == general.apply(group))
        }
        for (table, least) in [("records", 1_000), ("history", 30)] {
            let expected = try Self.rows(of: table, in: directory.file("general.sqlite"))
            #expect(try Self.rows(of: table, in: directory.file("constants.sqlite")) == expected, "\(table)")
            #expect(expected.count > least, "\(table)")
        }
    }

    /// Which thread prepares a push: the one that hands it to the ledger, never the ledger's own.
    @Test func theLedgerPreparesAPushOnTheThreadThatHandsItOver() async throws {
        let converted = Mutex<[pthread_t]>([]), caller = Mutex<pthread_t?>(nil)
        let ledger = Ledger(name: "prepared", currency: .usd, store: InMemoryLedgerStore(), fieldsConverter: { fields in
            converted.withLock { $0.append(pthread_self()) }
            return ExpenseFields.draft(from: fields)
        })
        let id = UUID()
        let items = [putItem(1, id, base: 0, lunch()), putItem(2, id, base: 1, fields(amount: 9))]
        let result = try await withCheckedThrowingContinuation { continuation in
            caller.withLock { $0 = pthread_self() }
            ledger.push(clientId: UUID(), items: items, credential: nil) { continuation.resume(with: $0) }
        }
        #expect(result.results.map(\.status) == [.applied(version: 1, seq: 1), .applied(version: 2, seq: 2)])
        // The create is converted once, before the hand-over, on the caller's thread; the edit (its values merge
        // onto the record) on the ledger's.
        let threads = converted.withLock { $0 }, pushing = try #require(caller.withLock { $0 })
        #expect(threads.count == 2)
        #expect(threads.first.map { pthread_equal($0, pushing) != 0 } == true)
        #expect(threads.last.map { pthread_equal($0, pushing) == 0 } == true)
        await ledger.close()
    }

    /// The response line a push's result is sent as.
    static func answerBytes(_ results: [PushResult]) -> [[UInt8]] {
        results.map { RPCResponse.success(id: RequestID(1), result: $0) }
    }

    /// Every row of `table`, each column as its type and its bytes in hex (text compared by its bytes: NFC and
    /// NFD differ), in rowid order.
    static func rows(of table: String, in path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path)
        let columns = try connection.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid").map([.text(table)]) { $0.text(0) }
        let select = columns.map { "typeof(\($0)) || ':' || hex(\($0))" }.joined(separator: " || '|' || ")
        return try connection.prepare("SELECT \(select) FROM \(table) ORDER BY 1").map { $0.text(0) }
    }
}
