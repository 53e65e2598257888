import Foundation
import PostgreSQL
import Testing
import TestSupport

/// Short versions of `Scripts/crash-test --postgres` (docs/reliability.md, "Several daemons, crash and
/// restart") with the real binaries: two `expensed serve --postgres` daemons on one database, clients with
/// both addresses pushing under load; at the end every daemon serves every acknowledged mutation exactly once
/// (its full pull and summary equal the clients' models, and each other).
@Suite(.serialized, .enabled(if: PostgresTestCluster.enabled, Comment(rawValue: PostgresTestCluster.skipReason)))
struct PostgresCrashTests {
    /// The package's root (Scripts/, .ci/).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func crashTest(_ arguments: [String]) throws -> ExpenseProcess.Result {
        try ExpenseProcess.run("/usr/bin/env", ["python3", root + "/Scripts/crash-test", "--binary", ExpenseProcess.daemonExecutable,
                                                "--clients", "3"] + arguments,
                               environment: ProcessInfo.processInfo.environment, scratch: NSTemporaryDirectory(), timeout: 240)
    }

    /// The numbers of the summary line (`… N daemon kills, M PostgreSQL restarts, U storage_unavailable/busy answers …`).
    static func count(_ label: String, in output: String) -> Int? {
        guard let range = output.range(of: " " + label) else { return nil }
        return Int(output[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    /// Each daemon SIGKILLed once under the load, on the shared cluster (a schema of its own).
    @Test func daemonsKilledInTurnUnderLoadLoseNothingAcknowledged() async throws {
        try await onOwnThread {
            try withPostgresSchema { conninfo, _, _ in
                let result = try Self.crashTest(["--postgres", conninfo, "--daemons", "2", "--kills", "2"])
                #expect(result.status == 0, "\(result)")
                #expect(result.stdout.contains("2 kills, ") && result.stdout.contains(" acknowledged mutations, 0 lost"), "\(result)")
                #expect((Self.count("acknowledged mutations", in: result.stdout) ?? 0) > 0, "\(result)")
            }
        }
    }

    /// PostgreSQL itself stopped (fast, then immediate) and started again under the load, on a throwaway cluster
    /// of this test's own (.ci/postgres): meanwhile the daemons answer −32007 `storage_unavailable` (never a
    /// wrong token), the clients move on and retry, the daemons reconnect with backoff, and nothing
    /// acknowledged is lost or half-applied.
    @Test func postgresRestartedUnderLoadLosesNothingAcknowledged() async throws {
        try await onOwnThread {
            _ = try PostgresTestCluster.required()  // the cluster tools are there (under CI: a failure when not)
            let cluster = try ExpenseProcess.run("/usr/bin/env", ["mktemp", "-d", "/tmp/expense-pg.XXXXXX"],
                                                 environment: [:], scratch: NSTemporaryDirectory()).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            // durable: synchronous_commit on (the shared test cluster's "off" loses acknowledged commits in an immediate stop)
            let started = try ExpenseProcess.run(Self.root + "/.ci/postgres", ["start", cluster, "durable"],
                                                 environment: ProcessInfo.processInfo.environment, scratch: NSTemporaryDirectory())
            defer {
                _ = try? ExpenseProcess.run(Self.root + "/.ci/postgres", ["stop", cluster],
                                            environment: ProcessInfo.processInfo.environment, scratch: NSTemporaryDirectory())
            }
            try #require(started.status == 0, "\(started)")
            let conninfo = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try Self.crashTest(["--postgres", conninfo, "--postgres-dir", cluster, "--daemons", "2",
                                             "--kills", "3", "--postgres-restarts", "2"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains(" acknowledged mutations, 0 lost"), "\(result)")
            #expect(Self.count("PostgreSQL restarts", in: result.stdout) == 1, "\(result)")
            #expect((Self.count("storage_unavailable/busy answers", in: result.stdout) ?? 0) > 0, "\(result)")
        }
    }
}
