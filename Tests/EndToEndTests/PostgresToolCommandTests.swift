import Foundation
import PostgreSQL
import Testing
import TestSupport

/// `expensed token add|list|revoke --postgres` and `expensed compact --postgres` with the real binary, on a
/// schema of its own in the test cluster (``TestSupport/PostgresTestCluster``).
@Suite struct PostgresToolCommandTests {
    /// Runs `expensed ARGUMENTS --postgres TARGET`.
    private static func expensed(_ arguments: [String], on target: String) throws -> ExpenseProcess.Result {
        try ExpenseProcess.run(ExpenseProcess.daemonExecutable, arguments + ["--postgres", target],
                               environment: ProcessInfo.processInfo.environment, scratch: NSTemporaryDirectory())
    }

    /// `ledger add` and `ledger list` use one connection whatever the number of ledgers: they used to open every
    /// ledger with a backend of its own, so past `max_connections` (200 in the test cluster) adding one more
    /// failed with "too many clients".
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func ledgerAddAndListUseOneConnectionWithMoreLedgersThanBackends() async throws {
        try await onOwnThread {
            try withPostgresSchema { target, admin, schema in
                func expensed(_ arguments: [String]) throws -> ExpenseProcess.Result { try Self.expensed(arguments, on: target) }
                #expect(try expensed(["ledger", "add", "first"]).status == 0)
                try admin.execute("""
                    INSERT INTO \(admin.quotedIdentifier(schema)).ledgers (name, currency, ledger_id, epoch)
                    SELECT 'many-' || i, 'EUR', gen_random_uuid(), gen_random_uuid() FROM generate_series(1, 250) AS i
                    """)
                let added = try expensed(["ledger", "add", "one-more", "--currency", "CHF"])
                #expect(added.status == 0 && added.stderr == "", "\(added)")
                let listed = try expensed(["ledger", "list"])
                #expect(listed.status == 0, "\(listed)")
                let lines = listed.stdout.split(separator: "\n")
                #expect(lines.count == 252 && lines.contains("one-more CHF") && lines.contains("many-250 EUR"), "\(lines.prefix(3))")
            }
        }
    }

    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func tokensAreAddedListedAndRevokedAsHashesAndALedgerIsCompactedInTheDatabase() async throws {
        try await onOwnThread {
            try withPostgresSchema { target, admin, schema in
                func expensed(_ arguments: [String]) throws -> ExpenseProcess.Result { try Self.expensed(arguments, on: target) }
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
                #expect(compacted.stdout == "horizon 0, purged 0 tombstones and removed 0 history entries\n", "\(compacted)")
            }
        }
    }

    /// `expensed backup FILE --ledger NAME --postgres CONNINFO`: a SQLite ledger file `restore` takes into a data
    /// directory; an existing FILE or an unknown ledger is exit 1, as with `--data`, and leaves no file behind.
    @Test(.enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
    func aPostgresLedgerIsBackedUpIntoAFileRestoreTakes() async throws {
        try await onOwnThread {
            try withPostgresSchema { target, _, _ in
                let directory = NSTemporaryDirectory() + "expensed-pg-backup-" + UUID().uuidString
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                func expensed(_ arguments: [String]) throws -> ExpenseProcess.Result {
                    try ExpenseProcess.run(ExpenseProcess.daemonExecutable, arguments,
                                           environment: ProcessInfo.processInfo.environment, scratch: directory)
                }
                #expect(try expensed(["ledger", "add", "shop", "--postgres", target]).status == 0)
                let file = directory + "/shop.backup"
                let backedUp = try expensed(["backup", file, "--ledger", "shop", "--postgres", target])
                #expect(backedUp.status == 0 && backedUp.stdout.isEmpty, "\(backedUp)")
                let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
                #expect(mode == 0o600)
                let again = try expensed(["backup", file, "--ledger", "shop", "--postgres", target])
                #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again)")
                let unknown = try expensed(["backup", directory + "/nope.backup", "--ledger", "nope", "--postgres", target])
                #expect(unknown.status == 1, "\(unknown)")
                #expect(!FileManager.default.fileExists(atPath: directory + "/nope.backup"))
                let restored = try expensed(["restore", file, "--ledger", "shop", "--data", directory + "/data"])
                #expect(restored.status == 0 && restored.stderr.contains("restored ledger 'shop'"), "\(restored)")
                let listed = try expensed(["ledger", "list", "--data", directory + "/data"])
                #expect(listed.stdout == "shop USD\n", "\(listed)")
            }
        }
    }
}
