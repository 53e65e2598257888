import ExpenseProtocol
import ExpenseTransport
import Foundation
import TestSupport
import Testing

/// `expensed token add|list|revoke` against a real daemon, and what the `expense` client does with a role.
@Suite(.serialized) struct TokenCommandTests {
    private static let daemon = ExpenseProcess.daemonExecutable

    private static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func addToken(_ process: ExpenseProcess, _ name: String, role: String, data: String) throws -> String {
        let added = try process.run(["token", "add", name, "--ledger", "default", "--role", role, "--data", data], executable: daemon)
        guard added.status == 0 else { throw ExpensedDaemon.DaemonFailure(message: "\(added)") }
        return added.stdout.trimmingCharacters(in: .newlines)
    }

    @Test func addPrintsOnlyTheTokenListShowsNamesAndRolesRevokeRemoves() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let ledger = try scratch.run(["ledger", "add", "home", "--data", data], executable: Self.daemon)
            #expect(ledger.status == 0, "\(ledger)")
            let first = ledger.stdout.trimmingCharacters(in: .newlines)

            let added = try scratch.run(["token", "add", "phone", "--ledger", "home", "--role", "viewer", "--data", data],
                                        executable: Self.daemon)
            let token = added.stdout.trimmingCharacters(in: .newlines)
            #expect(added.status == 0 && added.stderr == "" && added.stdout == token + "\n" && Self.isToken(token), "\(added)")

            let list = try scratch.run(["token", "list", "--ledger", "home", "--data", data], executable: Self.daemon)
            #expect(list.status == 0, "\(list)")
            let lines = list.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0].hasPrefix("default  owner ") && lines[1].hasPrefix("phone    viewer "), "\(list)")
            #expect(lines.allSatisfy { $0.contains("last used never") })
            #expect(!list.stdout.contains(token) && !list.stdout.contains(first), "a token was listed")

            let json = try scratch.run(["token", "list", "--ledger", "home", "--json", "--data", data], executable: Self.daemon)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["default", "phone"])
            #expect(items.map { $0["role"] as? String } == ["owner", "viewer"])
            #expect(items.allSatisfy { $0["lastUsed"] is NSNull && ($0["created"] as? String)?.hasSuffix("Z") == true })

            let taken = try scratch.run(["token", "add", "phone", "--ledger", "home", "--role", "editor", "--data", data],
                                        executable: Self.daemon)
            #expect(taken.status == 1 && taken.stdout == "" && taken.stderr.contains("token_exists"), "\(taken)")
            let badRole = try scratch.run(["token", "add", "tv", "--ledger", "home", "--role", "admin", "--data", data],
                                          executable: Self.daemon)
            #expect(badRole.status == 64 && badRole.stdout == "", "\(badRole)")
            let noLedger = try scratch.run(["token", "list", "--ledger", "nope", "--data", data], executable: Self.daemon)
            #expect(noLedger.status == 1 && noLedger.stderr.contains("unknown_ledger"), "\(noLedger)")

            let revoked = try scratch.run(["token", "revoke", "phone", "--ledger", "home", "--data", data], executable: Self.daemon)
            #expect(revoked.status == 0 && revoked.stdout == "", "\(revoked)")
            let again = try scratch.run(["token", "revoke", "phone", "--ledger", "home", "--data", data], executable: Self.daemon)
            #expect(again.status == 1 && again.stderr.contains("unknown_token"), "\(again)")
            let after = try scratch.run(["token", "list", "--ledger", "home", "--data", data], executable: Self.daemon)
            #expect(after.stdout.split(separator: "\n").count == 1 && after.stdout.hasPrefix("default "), "\(after)")
        }
    }

    /// A revoke run beside the daemon: the token's open connection (idle, watching) is closed, and a new
    /// `hello` with it is −32001; a token added beside the daemon works at once, with its role in `hello`.
    @Test func revokeBesideARunningDaemonClosesTheTokensConnections() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.address()
            let token = try Self.addToken(scratch, "laptop", role: "editor", data: data)
            let owner = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)

            let laptop = try WireClient(address)
            let hello = try laptop.hello(token: token)
            #expect(hello.role == .editor && hello.tokenName == "laptop")
            _ = try laptop.result("watch", "{}")
            let other = try WireClient(address)
            #expect(try other.hello(token: owner).role == .owner)

            let revoked = try scratch.run(["token", "revoke", "laptop", "--ledger", "default", "--data", data], executable: Self.daemon)
            #expect(revoked.status == 0, "\(revoked)")
            // The watching connection sends nothing: the daemon's poll closes it (within a second).
            let started = ContinuousClock.now
            #expect(try laptop.connection.readLine(timeout: .seconds(10)) == nil, "the revoked token's connection stayed open")
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(daemon.stderr.contains("token 'laptop' of ledger 'default' was revoked; closing"), "\(daemon.stderr)")

            let retry = try WireClient(address)
            #expect(throws: RPCError.self) { _ = try retry.hello(token: token) }
            // The owner's connection is untouched.
            #expect(try other.call("ping", "{}").get() != .null)
            _ = (laptop, other)
        }
    }

    /// A viewer's cache: `status` shows the role; a local add is refused with exit 77 before anything is queued;
    /// an editor's cache adds and syncs.
    @Test func viewerCacheShowsItsRoleAndRefusesLocalChanges() async throws {
        try await onOwnThread {
            let viewer = try ExpenseProcess(), editor = try ExpenseProcess()
            let data = viewer.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: viewer.directory)
            defer { _ = daemon.stop() }
            let address = try daemon.addressText()
            for (person, role) in [(viewer, "viewer"), (editor, "editor")] {
                let token = try Self.addToken(person, "\(role)-1", role: role, data: data)
                try person.succeed(["remote", "set", address, "--ledger", "default", "--token", token])
            }
            try editor.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            try editor.succeed(["sync"])
            try viewer.succeed(["sync"])
            #expect(try viewer.succeed(["list"]).contains("food"))

            let status = try viewer.succeed(["status"])
            #expect(status.contains("role:       viewer (token 'viewer-1'): read only"), "\(status)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try viewer.succeed(["status", "--json"]).utf8)) as? [String: Any])
            #expect(json["role"] as? String == "viewer" && json["tokenName"] as? String == "viewer-1")
            #expect(try editor.succeed(["status"]).contains("role:       editor"))

            let refused = try viewer.run(["add", "3.00", "coffee", "--date", "2026-03-02"])
            #expect(refused.status == 77 && refused.stdout == "" && refused.stderr.contains("Error: forbidden:"), "\(refused)")
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(try viewer.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
            let id = try #require(listed.first?["id"] as? String)
            let deleted = try viewer.run(["delete", String(id.prefix(8))])
            #expect(deleted.status == 77, "\(deleted)")
            let after = try #require(try JSONSerialization.jsonObject(with: Data(try viewer.succeed(["status", "--json"]).utf8)) as? [String: Any])
            #expect(after["pending"] as? Int == 0, "something was queued on a viewer's cache")
            #expect(try viewer.succeed(["list"]).contains("food") && !(try viewer.succeed(["list"]).contains("coffee")))
        }
    }
}
