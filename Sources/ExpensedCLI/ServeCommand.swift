import CEpoll
import CommandLineKit
import Dispatch
import ExpenseCore
import ExpenseServer
import ExpenseTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `expensed serve`: open the data directory, listen, serve until SIGINT/SIGTERM, then close cleanly.
struct ServeCommand {
    let command: ParsedCommand

    /// Validates the options (a usage error before anything touches the disk or the network), then serves.
    func run() async throws(UsageError) -> ExitCode {
        var configuration = ServerConfiguration()
        if let listen = command.option("listen") {
            do {
                configuration.listen = try SocketAddress(parsing: listen)
            } catch {
                throw UsageError("Invalid value for '--listen': \(error)", path: command.path)
            }
        }
        configuration.maximumConnections = try integer("max-connections", in: 1...1_000_000) ?? configuration.maximumConnections
        configuration.maximumLineLength = try integer("max-line", in: 256...(1 << 30)) ?? configuration.maximumLineLength
        if let seconds = try integer("idle-timeout", in: 0...(365 * 86_400)) {
            configuration.idleTimeout = seconds == 0 ? nil : .seconds(seconds)
        }
        let currency = try ExpensedCommand.currencyOption(command)
        if let conninfo = ExpensedCommand.postgresOption(command) {
            return await Self.servePostgres(configuration: configuration, conninfo: conninfo,
                                            trustNetwork: command.flag("trust-network"))
        }
        return await Self.serve(configuration: configuration, currency: currency,
                                data: ExpensedCommand.dataDirectory(command.option("data")),
                                trustNetwork: command.flag("trust-network"))
    }

    /// The integer option `--name` within `range`, if given.
    private func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = command.option(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("Invalid value for '--\(name)': expected an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                             path: command.path)
        }
        return number
    }

    private static func serve(configuration: ServerConfiguration, currency: Currency, data: String,
                              trustNetwork: Bool) async -> ExitCode {
        let log = ServerLog.standardError
        signal(SIGPIPE, SIG_IGN)
        // Nothing is created before the socket is bound: the directory object reads nothing yet; once the
        // address is ours (connections wait in the backlog until `start`), the directory's lock is taken, then
        // the ledgers are opened (a damaged one is refused), and a fresh directory gets `default`.
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: data, creating: .later)
        } catch {
            log("cannot open the data directory \(data): \(error)")
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
        let lock: DataDirectoryLock
        do {
            // One daemon per data directory, taken before any ledger is opened (see DataDirectoryLock).
            lock = try DataDirectoryLock(directory: data)
            if let tokenPath = try directory.openDeferred(defaultCurrency: currency) {
                log("created ledger 'default' (\(currency.code)); its token is in \(tokenPath)")
            }
        } catch {
            // A damaged database is named by the error itself (`the database DIR/NAME.sqlite is damaged …`).
            log("cannot open the data directory \(data): \(error)")
            server.stop()
            await server.waitUntilStopped()
            await directory.close()
            return DaemonFailure.exitCode(for: error)
        }
        if !server.address.isLoopback, !trustNetwork {
            log("WARNING: listening on \(server.address), which is not a loopback address. Tokens and expenses travel "
                + "unencrypted: put an SSH tunnel or a TLS terminator in front, or pass --trust-network if this network is trusted.")
        }
        // SIGINT/SIGTERM become a graceful stop. The handler is installed synchronously (sigaction) and only
        // writes the signal's number into a pipe; a thread of its own reads it. (A Dispatch signal source
        // registers asynchronously: a signal sent right after `listening on` could slip past it.)
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
        let ledgers = directory.ledgers().map { "\($0.name) (\($0.currency.code))" }.joined(separator: ", ")
        log("expensed \(ServerConfiguration.version) serving \(ledgers) from \(data) on \(server.address)")
        // The first stdout line, written in one unbuffered `write` once the listening socket accepts.
        ExpensedCommand.printOut("listening on \(server.address)\n")
        await server.waitUntilStopped()
        await directory.close()
        withExtendedLifetime(lock) {}  // held until every ledger is closed
        log("stopped")
        return .success
    }
}
