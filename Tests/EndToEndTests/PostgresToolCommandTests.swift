import Foundation
import PostgreSQL
import Testing
import TestSupport

/// `expensed token add|list|revoke --postgres` and `expensed compact --postgres` with the real binary, on a
/// schema of its own in the test cluster (``TestSupport/PostgresTestCluster``).
@Suite struct PostgresToolCommandTests {
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func tokensAreAddedListedAndRevokedAsHashesAndALedgerIsCompactedInTheDatabase() async throws {
        try await onOwnThread {
            let database = try PostgresScratchSchema()
            defer { database.drop() }
            let (admin, schema, target) = (database.admin, database.schema, database.target)
            func expensed(_ arguments: [String]) throws -> ExpenseProcess.Result {
                try ExpenseProcess.run(ExpenseProcess.daemonExecutable, arguments + ["--postgres", target],
                                       environment: ProcessInfo.processInfo.environment, scratch: NSTemporaryDirectory())
            }
            let added = try expensed(["ledger", "add", "shop"])
            #expect(added.status == 0, "\(added)")
            let owner = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(owner.utf8.count == 64)

            let phone = try expensed(["token", "add", "phone", "--ledger", "shop", "--role", "viewer"])
            #expect(phone.status == 0, "\(phone)")
            let phoneToken = phone.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(phoneToken.utf8.count == 64 && phoneToken != owner)
            #expect(try expensed(["token", "add", "phone", "--ledger", "shop", "--role", "editor"]).status == 1)

            let listed = try expensed(["token", "list", "--ledger", "shop", "--json"])
            #expect(listed.status == 0, "\(listed)")
            #expect(listed.stdout.contains("\"name\":\"default\",\"role\":\"owner\""), "\(listed)")
            #expect(listed.stdout.contains("\"name\":\"phone\",\"role\":\"viewer\""), "\(listed)")
            #expect(!listed.stdout.contains(owner) && !listed.stdout.contains(phoneToken))
            // The database keeps each token's SHA-256, never its text.
            let hashes = try admin.query("""
                SELECT count(*) FROM \(admin.quotedIdentifier(schema)).tokens
                WHERE hash = sha256(convert_to($1, 'UTF8')) OR hash = sha256(convert_to($2, 'UTF8'))
                """, [.text(owner), .text(phoneToken)]).first?.int64(0)
            #expect(hashes == 2)

            let revoked = try expensed(["token", "revoke", "phone", "--ledger", "shop"])
            #expect(revoked.status == 0, "\(revoked)")
            #expect(!(try expensed(["token", "list", "--ledger", "shop"]).stdout.contains("phone")))
            #expect(try expensed(["token", "revoke", "phone", "--ledger", "shop"]).status == 1)
            #expect(try expensed(["token", "list", "--ledger", "nope"]).status == 1)

            let compacted = try expensed(["compact", "--ledger", "shop", "--keep-days", "0"])
            #expect(compacted.status == 0, "\(compacted)")
            #expect(compacted.stdout == "horizon 0, removed 0 tombstones and 0 history entries\n", "\(compacted)")
        }
    }
}
