import ExpenseCore
import ExpenseProtocol
import ExpenseTransport
import Foundation
import SQLite
import Testing
import TestSupport
@testable import ExpenseServer

/// Named tokens with roles (docs/daemon.md, "Tokens and roles", Protocol.md §4 "Roles"): storage, migration, roles on the
/// wire, revocation.
@Suite(.offTheCooperativePool) struct TokenTests {
    // MARK: Store contract: both stores keep tokens the same way

    @Test(arguments: LedgerStoreKind.allCases)
    func storesAddListRemoveAndRecordUses(kind: LedgerStoreKind) throws {
        let test = try TestLedger(kind)
        let store = try #require(test.engine.store as? any TokenStore)
        #expect(try store.tokens().isEmpty)
        let phone = StoredToken(name: "phone", role: .viewer, digest: Token.digest("a"), created: 100)
        try store.addToken(phone)
        try store.addToken(StoredToken(name: "laptop", role: .editor, digest: Token.digest("b"), created: 101))
        #expect(throws: LedgerError.tokenExists("phone")) { try store.addToken(phone) }
        #expect(try store.tokens().map(\.name) == ["laptop", "phone"])
        try store.recordTokenUses([TokenUse(name: "phone", digest: phone.digest, time: 200),
                                   TokenUse(name: "laptop", digest: Token.digest("other"), time: 200)])  // another digest: dropped
        try store.recordTokenUses([TokenUse(name: "phone", digest: phone.digest, time: 150)])  // never backwards
        #expect(try store.tokens().map(\.lastUsed) == [nil, 200])
        #expect(try store.removeToken(named: "phone"))
        #expect(try !store.removeToken(named: "phone"))
        #expect(try store.tokens().map(\.name) == ["laptop"])
    }

    // MARK: Hash-only storage

    @Test func theFileKeepsOnlyHashesNeverATokensBytes() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, creating: .directory)
        let first = try ledgers.addLedger(name: "home", currency: .usd)
        let second = try LedgerDirectory.addToken(dataDirectory: directory, ledger: "home", name: "phone", role: .viewer)
        let ledger = try #require(ledgers.ledger(named: "home"))
        let third = try await ledger.addToken(name: "tv", role: .viewer)
        await ledgers.close()
        let bytes = try Self.fileBytes(directory + "/home.sqlite")
        for token in [first, second, third] {
            #expect(!Self.contains(bytes, Array(token.utf8)), "a token's text is in the file")
            #expect(Self.contains(bytes, Token.digest(token)), "the token's SHA-256 is not in the file")
        }
    }

    @Test func digestsCompareExactlyAtEveryByte() {
        let digest = Token.digest(Token.generate())
        #expect(digest.count == 32 && Token.sameDigest(digest, digest))
        for index in digest.indices {
            var other = digest
            other[index] ^= 1
            #expect(!Token.sameDigest(other, digest))
        }
        #expect(!Token.sameDigest(Array(digest.dropLast()), digest) && !Token.sameDigest([], []))
        // The SHA-256 of "abc" (FIPS 180-2): OpenSSL's digest is the standard one.
        #expect(Token.digest("abc").map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    // MARK: Migration of a file with the old single token

    @Test func aFileWithTheOldSingleTokenOpensWithItAsTheOwnerTokenDefault() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let path = directory + "/old.sqlite"
        let token = Token.generate()
        do {  // the schema up to migration 2 and the token in `meta`, as the previous version wrote them
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.migrate(Array(SQLiteLedgerStore.migrations.prefix(SQLiteLedgerStore.tokensMigration)))
            for (key, value) in ["name": "old", "currency": "EUR", "token": token] {
                try connection.prepare("INSERT INTO meta (key, value) VALUES (?1, ?2)").run([.text(key), .text(value)])
            }
        }
        #expect(Self.contains(try Self.fileBytes(path), Array(token.utf8)))
        let ledgers = try LedgerDirectory(dataDirectory: directory, creating: .nothing)
        let ledger = try #require(ledgers.authenticate(ledger: "old", token: token), "the old token no longer opens the ledger")
        #expect(ledger.currency.code == "EUR")
        let tokens = try await ledger.tokens()
        #expect(tokens.map(\.name) == ["default"] && tokens.map(\.role) == [.owner] && tokens[0].digest == Token.digest(token))
        let credential = await withCheckedContinuation { continuation in
            ledger.authenticate(token: token) { continuation.resume(returning: (try? $0.get()) ?? nil) }
        }
        #expect(credential?.name == "default" && credential?.role == .owner)
        await ledgers.close()
        #expect(!Self.contains(try Self.fileBytes(path), Array(token.utf8)), "the old token's bytes are still in the file")
        let meta = try SQLiteConnection(path: path, mode: .readOnly).prepare("SELECT count(*) FROM meta WHERE key = 'token'").first { $0.int64(0) }
        #expect(meta == 0)
    }

    // MARK: Roles on the wire

    @Test func helloCarriesRoleAndNameAViewersPushIsForbiddenAndConsumesNothingAnEditorPushes() async throws {
        try await withLedgerServer { harness in
            let viewerToken = try LedgerDirectory.addToken(dataDirectory: harness.directory, ledger: "default", name: "phone", role: .viewer)
            let editorToken = try LedgerDirectory.addToken(dataDirectory: harness.directory, ledger: "default", name: "laptop", role: .editor)
            let clientId = UUID()
            let push = RawClient.request(id: 2, method: "push", params: #"{"mutations":[{"mutationId":1,"type":"put","id":"\#(UUID().uuidString)","baseVersion":0,"fields":{"amount":100,"category":"food","date":"2026-03-01"}}]}"#)

            let viewer = try RawClient(harness.server)
            try viewer.send(LedgerServerHarness.hello(token: viewerToken, clientId: clientId))
            let hello = try #require(try viewer.receiveResult()).result
            #expect(hello.objectValue?["role"] == .string("viewer") && hello.objectValue?["tokenName"] == .string("phone"))
            try viewer.send(push)
            let refused = try #require(try viewer.receiveError())
            #expect(refused.error.code == -32006 && refused.error.reason == "forbidden" && refused.error.field == "mutations")
            try viewer.send(RawClient.request(id: 3, method: "pull", params: #"{"since":0}"#))
            #expect(try viewer.receiveResult()?.id == RequestID(3), "a viewer may still read")

            let editor = try RawClient(harness.server)
            try editor.send(LedgerServerHarness.hello(token: editorToken, clientId: clientId))
            let editorHello = try #require(try editor.receiveResult()).result
            #expect(editorHello.objectValue?["lastMutationId"]?.int64Value == 0, "the forbidden push consumed a mutationId")
            #expect(editorHello.objectValue?["role"] == .string("editor"))
            try editor.send(push)
            let pushed = try #require(try editor.receiveResult()).result
            #expect(pushed.objectValue?["cursor"]?.int64Value == 1)
        }
    }

    // MARK: Revocation reaches open connections

    @Test func aRevokeByAnotherProcessClosesTheTokensConnectionsAndRefusesItsHello() async throws {
        try await withLedgerServer { harness in
            let token = try LedgerDirectory.addToken(dataDirectory: harness.directory, ledger: "default", name: "phone", role: .editor)
            let idle = try RawClient(harness.server)
            try idle.send(LedgerServerHarness.hello(token: token))
            #expect(try idle.receiveResult() != nil)
            let busy = try RawClient(harness.server)
            try busy.send(LedgerServerHarness.hello(token: token))
            #expect(try busy.receiveResult() != nil)
            let owner = try harness.greetedClient()

            // As `expensed token revoke` does: its own connection to the file.
            try LedgerDirectory.revokeToken(dataDirectory: harness.directory, ledger: "default", name: "phone")
            // The next request reaching the ledger takes the revoke in: −32001 instead of the answer, then closed.
            try busy.send(RawClient.request(id: 5, method: "pull", params: #"{"since":0}"#))
            #expect(try busy.receiveError()?.error.code == RPCError.unauthorizedCode, "the revoked token's request was answered")
            #expect(try busy.receive() == nil)
            // A connection that sends nothing is closed by the daemon's poll (one round here, no timer to wait for).
            harness.ledgers.checkTokensAndWait()
            #expect(try idle.receive() == nil, "the revoked token's idle connection stayed open")
            #expect(harness.log.all.contains { $0.contains("token 'phone' of ledger 'default' was revoked; closing") })

            let again = try RawClient(harness.server)
            try again.send(LedgerServerHarness.hello(token: token))
            #expect(try again.receiveError()?.error.code == RPCError.unauthorizedCode)
            try owner.send(RawClient.request(id: 9, method: "ping"))
            #expect(try owner.receiveResult()?.id == RequestID(9), "another token's connection was touched")
        }
    }

    @Test func aPushQueuedByARevokedTokenIsNotApplied() async throws {
        let temporary = try TemporaryDirectory("ledger-tests"), directory = temporary.path
        defer { temporary.remove() }
        let ledgers = try LedgerDirectory(dataDirectory: directory, creating: .directory)
        _ = try ledgers.addLedger(name: "home", currency: .usd)
        let ledger = try #require(ledgers.ledger(named: "home"))
        let token = try await ledger.addToken(name: "phone", role: .editor)
        let credential = try #require(await withCheckedContinuation { continuation in
            ledger.authenticate(token: token) { continuation.resume(returning: (try? $0.get()) ?? nil) }
        })
        try await ledger.revokeToken(named: "phone")
        #expect(credential.isRevoked)
        let item = PushItem(mutationId: 1, decoded: .success(Mutation(mutationId: 1, type: .put, id: UUID(), baseVersion: 0,
                                                                   fields: ["amount": 1, "category": "x", "date": "2026-01-01"])))
        let result = await withCheckedContinuation { continuation in
            ledger.push(clientId: UUID(), items: [item], credential: credential) { continuation.resume(returning: $0) }
        }
        #expect(throws: RPCError.self) { try result.get() }
        #expect(ledger.head == 0)
        await ledgers.close()
    }

    // MARK: Helpers

    static func fileBytes(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            bytes += Array(try Data(contentsOf: URL(fileURLWithPath: path + suffix)))
        }
        return bytes
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }
}

extension LedgerDirectory {
    /// One round of the token poll, waited for (tests run on their own thread).
    func checkTokensAndWait() {
        let done = DispatchSemaphore(value: 0)
        checkTokens { done.signal() }
        done.wait()
    }
}
