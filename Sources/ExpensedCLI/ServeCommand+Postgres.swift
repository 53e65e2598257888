import CommandLineKit
import ExpenseServer
import ExpenseTransport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension ServeCommand {
    /// `expensed serve --postgres CONNINFO`: every ledger of the database, beside any number of other daemons
    /// on it (no data-directory lock). The connection string is logged only without its password.
    static func servePostgres(configuration: ServerConfiguration, conninfo: String,
                              upkeep: LedgerUpkeep, log: ServerLog) async -> ExitCode {
        signal(SIGPIPE, SIG_IGN)
        let directory: PostgresLedgerDirectory
        do {
            directory = try PostgresLedgerDirectory(conninfo: conninfo, connections: upkeep.postgresConnections)
        } catch {
            log(.error, "cannot open the PostgreSQL database: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
        let server: Server
        do {
            server = try Server(configuration: configuration, ledgers: directory, log: log)
        } catch {
            log(.error, "cannot listen on \(configuration.listen): \(error)")
            await directory.close()
            return DaemonFailure.exitCode(for: error)
        }
        Self.announceTransport(configuration, server: server, log: log)
        guard Self.stopOnSignal(server, log: log) else {
            await directory.close()
            return .failure
        }
        server.start()
        // A token revoked through any daemon or `expensed token revoke --postgres` closes its idle connections
        // here within this.
        directory.watchTokens(every: ExpensedCommands.tokenPollInterval)
        directory.closeUnusedLedgers(idle: upkeep.idle, maximum: upkeep.maximumOpen, log: log)
        let schedule = upkeep.compactAfter.map { keepDays in
            CompactionTimer(keepDays: keepDays, log: log) { directory.compactLedgers(before: $0, keepDays: $1, done: $2) }
        }
        log("expensed \(ServerConfiguration.version) serving the ledgers of PostgreSQL \(directory.redactedDescription) "
            + "(each opened when first asked for) on \(server.address)")
        ExpensedCLI.printOut("listening on \(server.address)\n")
        await server.waitUntilStopped()
        schedule?.cancel()
        await directory.close()
        log("stopped")
        return .success
    }
}
