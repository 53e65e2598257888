import TestSupport
import ExpenseClient
import Foundation
import Testing

@Suite struct StoreFailureTests {
    @Test(arguments: [CacheStoreKind.sqlite, .json])
    func aDamagedCacheIsAClearErrorNamingTheFile(kind: CacheStoreKind) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + (kind == .sqlite ? "/cache.sqlite" : "/cache.json")
        try Data("this is not a cache, just some words that fill more than a page header ....".utf8)
            .write(to: URL(fileURLWithPath: path))
        do {
            _ = try kind.open(in: directory)
            Issue.record("opening a damaged cache must fail")
        } catch let error as StoreError {
            guard case .damaged(let named, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(named == path)
            #expect(error.message.contains(path))
        }
    }

    @Test func cacheFilesArePrivate() throws {
        let directory = try TemporaryDirectory()
        let home = ExpenseHome(path: directory.path + "/home")
        let ledger = LocalLedger(store: try home.openStore())
        try ledger.add(.init(amount: 1, currency: "USD", category: "c", date: "2026-01-01"))
        func mode(_ path: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }
        #expect(try mode(home.path) == 0o700)
        #expect(try mode(home.cachePath) == 0o600)
        #expect(try mode(home.cachePath + "-wal") == 0o600)
    }

    @Test func homeDefaultsToDotExpense() {
        #expect(ExpenseHome(environment: ["HOME": "/home/ann"]).cachePath == "/home/ann/.expense/cache.sqlite")
        #expect(ExpenseHome(environment: ["EXPENSE_HOME": "/tmp/x", "EXPENSE_STORE": "json"]).cachePath == "/tmp/x/cache.json")
    }
}
