import CEpoll
import CommandLineKit
import ExpenseServer
import ExpenseTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ServeCommand {
    /// `expensed serve --postgres CONNINFO`: every ledger of the database, beside any number of other daemons
    /// on it (no data-directory lock). The connection string is logged only without its password.
    static func servePostgres(configuration: ServerConfiguration, conninfo: String,
                              compactAfter: Int?) async -> ExitCode {
        let log = ServerLog.standardError
        signal(SIGPIPE, SIG_IGN)
        let directory: PostgresLedgerDirectory
        do {
            directory = try PostgresLedgerDirectory(conninfo: conninfo)
        } catch {
            log("cannot open the PostgreSQL database: \(error)")
            return DaemonFailure.exitCode(for: error)
        }
        let server: Server
        do {
            server = try Server(configuration: configuration, ledgers: directory, log: log)
        } catch {
            log("cannot listen on \(configuration.listen): \(error)")
            await directory.close()
            return DaemonFailure.exitCode(for: error)
        }
        Self.announceTransport(configuration, server: server, log: log)
        let stopSignals = cepoll_stop_signal_pipe()
        guard stopSignals >= 0 else {
            log("cannot install the SIGINT/SIGTERM handler: \(String(cString: strerror(errno)))")
            await directory.close()
            return .failure
        }
        let stopWaiter = Thread {
            var number: UInt8 = 0
            while read(stopSignals, &number, 1) < 0 && errno == EINTR {}
            log("received \(Int32(number) == SIGINT ? "SIGINT" : "SIGTERM"); finishing in-flight requests and stopping")
            server.stop()
        }
        stopWaiter.stackSize = 64 * 1024
        stopWaiter.start()
        server.start()
        // A token revoked through any daemon or `expensed token revoke --postgres` closes its idle connections
        // here within this.
        directory.watchTokens(every: ExpensedCommands.tokenPollInterval)
        let schedule = compactAfter.map { keepDays in
            CompactionTimer(keepDays: keepDays, log: log) { directory.compactOpenLedgers(before: $0, keepDays: $1, done: $2) }
        }
        let ledgers = directory.ledgers().map { "\($0.name) (\($0.currency.code))" }.joined(separator: ", ")
        log("expensed \(ServerConfiguration.version) serving \(ledgers.isEmpty ? "no ledger yet" : ledgers) "
            + "from PostgreSQL \(directory.redactedDescription) on \(server.address)")
        ExpensedCLI.printOut("listening on \(server.address)\n")
        await server.waitUntilStopped()
        schedule?.cancel()
        await directory.close()
        log("stopped")
        return .success
    }
}
