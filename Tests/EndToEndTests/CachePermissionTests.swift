import TestSupport
import Foundation
import ProcessSpawn
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Permissions and damage told apart (docs/reliability.md, "Permissions and damage"), with the real binary run
/// as an ordinary user: as root, file modes do not stop reads or writes, so these tests drop to uid 65534 with
/// `setpriv` and are skipped where that is impossible.
@Suite struct CachePermissionTests {
    static let setpriv = "/usr/bin/setpriv"
    /// Why the tests cannot run here, or `nil`.
    static let skipReason: String? = {
        if geteuid() != 0 { return "not root: cannot switch to another user to test file modes" }
        if !FileManager.default.isExecutableFile(atPath: setpriv) { return "no \(setpriv) to run as an ordinary user" }
        let probe = try? ExpenseProcess.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                                      ExpenseProcess.executable, "--version"],
                                            environment: ["PATH": "/usr/bin:/bin"], scratch: NSTemporaryDirectory())
        if probe?.status != 0 { return "uid 65534 cannot run the built expense binary (\(probe?.stderr ?? "setpriv failed"))" }
        return nil
    }()

    /// Runs `expense arguments…` as uid/gid 65534 on `client`'s home (the built binary is world-executable).
    static func runAsNobody(_ client: ExpenseProcess, _ arguments: [String], store: String) throws -> ExpenseProcess.Result {
        let binary = ExpenseProcess.executable
        let environment = ["EXPENSE_HOME": client.home, "EXPENSE_STORE": store, "PATH": "/usr/bin:/bin", "HOME": client.home]
        return try ExpenseProcess.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "--", binary] + arguments,
                                      environment: environment, scratch: client.directory)
    }

    /// Gives `path` and everything under it to uid/gid 65534.
    static func giveToNobody(_ path: String) throws {
        #expect(chown(path, 65534, 65534) == 0)
        for name in try FileManager.default.subpathsOfDirectory(atPath: path) { #expect(chown(path + "/" + name, 65534, 65534) == 0) }
    }

    @Test(.enabled(if: skipReason == nil, "\(skipReason ?? "")"), arguments: ["sqlite", "json"])
    func aReadOnlyCacheStillReadsAndARefusedWriteSaysPermission(store: String) async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            try client.succeed(["add", "1", "food", "--note", "before"], environment: ["EXPENSE_STORE": store])
            let cache = client.home + (store == "sqlite" ? "/cache.sqlite" : "/cache.json")
            try Self.giveToNobody(client.directory)
            #expect(chmod(cache, 0o400) == 0)

            for arguments in [["list"], ["export"], ["summary"], ["status"], ["conflicts"], ["config", "get"]] {
                let result = try Self.runAsNobody(client, arguments, store: store)
                #expect(result.status == 0, "\(arguments) on a 0400 cache (\(store)): \(result)")
            }
            #expect(try Self.runAsNobody(client, ["list"], store: store).stdout.contains("before"))

            if store == "sqlite" {
                let added = try Self.runAsNobody(client, ["add", "2", "food"], store: store)
                #expect(added.status == 77, "\(added)")
                #expect(added.stderr.hasPrefix("Error: permission_denied: ") && added.stderr.contains(cache), "\(added)")
                #expect(!added.stderr.contains("aside") && !added.stderr.contains("NSCocoaErrorDomain")
                        && !added.stderr.contains("SELECT") && !added.stderr.contains("INSERT"), "\(added)")
            }
            #expect(try Self.runAsNobody(client, ["list"], store: store).status == 0, "a second read of the 0400 cache")
            // Nothing left behind that the next open trips over, once the mode is fixed.
            #expect(chmod(cache, 0o600) == 0)
            #expect(try Self.runAsNobody(client, ["list"], store: store).status == 0, "a read once the mode is fixed")
            for name in try FileManager.default.contentsOfDirectory(atPath: client.home) where name.hasPrefix("cache.sqlite-") {
                let mode = try FileManager.default.attributesOfItem(atPath: client.home + "/" + name)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name) was left with mode \(String(mode ?? 0, radix: 8))")
            }
            let added = try Self.runAsNobody(client, ["add", "3", "food", "--note", "after"], store: store)
            #expect(added.status == 0, "an add once the mode is fixed (\(store)): \(added)")
            let listed = try Self.runAsNobody(client, ["list"], store: store)
            #expect(listed.stdout.contains("before") && listed.stdout.contains("after"), "\(listed)")
        }
    }

    @Test(.enabled(if: skipReason == nil, "\(skipReason ?? "")"), arguments: ["sqlite", "json"])
    func anUnreadableCacheSaysPermissionAndNeverAdvisesMovingIt(store: String) async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            try client.succeed(["add", "1", "food"], environment: ["EXPENSE_STORE": store])
            let cache = client.home + (store == "sqlite" ? "/cache.sqlite" : "/cache.json")
            try Self.giveToNobody(client.directory)
            #expect(chmod(cache, 0o000) == 0)
            for arguments in [["list"], ["add", "2", "food"]] {
                let result = try Self.runAsNobody(client, arguments, store: store)
                #expect(result.status == 77, "\(arguments) (\(store)): \(result)")
                #expect(result.stderr.hasPrefix("Error: permission_denied: ") && result.stderr.contains(cache), "\(result)")
                #expect(!result.stderr.contains("aside"), "\(result)")
            }
        }
    }

    @Test(arguments: ["sqlite", "json"])
    func onlyADamagedCacheIsToBeMovedAsideAfterAnExport(store: String) async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            try FileManager.default.createDirectory(atPath: client.home, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let cache = client.home + (store == "sqlite" ? "/cache.sqlite" : "/cache.json")
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: cache))
            let result = try client.run(["list"], environment: ["EXPENSE_STORE": store])
            #expect(result.status == 74, "\(result)")
            #expect(result.stderr.hasPrefix("Error: unreadable_cache: ") && result.stderr.contains("damaged"), "\(result)")
            #expect(result.stderr.contains("expense export") && result.stderr.contains("aside"), "\(result)")
        }
    }

    @Test func aHomeOthersMayReadIsWarnedAboutByMode() async throws {
        try await onOwnThread {
            let client = try ExpenseProcess()
            try client.succeed(["add", "1", "food"])
            #expect(chmod(client.home, 0o755) == 0)
            let result = try client.run(["list"])
            #expect(result.status == 0)
            #expect(result.stderr.contains("mode 0755") && result.stderr.contains(client.home), "\(result)")
            #expect(chmod(client.home, 0o700) == 0)
            #expect(try client.run(["list"]).stderr == "")
        }
    }
}
