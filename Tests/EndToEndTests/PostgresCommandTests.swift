import Foundation
import Testing
import TestSupport

/// `expensed … --postgres CONNINFO` with the real binary: the password is never printed or logged.
@Suite struct PostgresCommandTests {
    /// An unreachable server (port 1 refuses): the error names where, never the password; exit 69.
    @Test func anUnreachableDatabaseIsUnavailableAndItsPasswordIsNeverShown() async throws {
        let result = try await onOwnThread {
            try ExpenseProcess.run(ExpenseProcess.daemonExecutable,
                                   ["ledger", "list", "--postgres", "host=127.0.0.1 port=1 user=ann password=hunter2secret"],
                                   environment: ProcessInfo.processInfo.environment,
                                   scratch: NSTemporaryDirectory())
        }
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("storage_unavailable"), "\(result)")
        #expect(!result.stderr.contains("hunter2secret") && !result.stdout.contains("hunter2secret"))
    }
}
