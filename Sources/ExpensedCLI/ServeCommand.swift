import CEpoll
import CommandLineKit
import ExpenseCore
import ExpenseServer
import ExpenseTransport
import FoundationEssentials
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// `expensed serve`: open the data directory, listen, serve until SIGINT/SIGTERM, then close cleanly.
struct ServeCommand {
    let command: ParsedCommand

    /// Validates the options (a usage error before anything touches the disk or the network), then serves.
    func run() async throws(UsageError) -> ExitCode {
        var configuration = ServerConfiguration()
        configuration.listen = try command.choice(ExpensedOptions.listen) ?? configuration.listen
        configuration.maximumConnections = try command.choice(ExpensedOptions.maxConnections) ?? configuration.maximumConnections
        configuration.maximumLineLength = try command.choice(ExpensedOptions.maxLine) ?? configuration.maximumLineLength
        if let seconds = try command.choice(ExpensedOptions.idleTimeout) {
            configuration.idleTimeout = seconds == 0 ? nil : .seconds(seconds)
        }
        configuration.proxyProtocolSources = try command.choice(ExpensedOptions.proxyProtocol) ?? configuration.proxyProtocolSources
        let currency = try ExpensedCLI.currencyOption(command)
        let insecurePlaintext = command[ExpensedOptions.insecurePlaintext] || command[ExpensedOptions.trustNetwork]
        switch (command[ExpensedOptions.tlsCertificate], command[ExpensedOptions.tlsKey]) {
        case (let certificate?, let key?):
            do {
                configuration.tls = try TLSServerIdentity(certificateFile: certificate, keyFile: key)
            } catch {
                ExpensedCLI.printError("Error: \(error)")
                if case .keyReadableByOthers = error { return .permissionDenied }
                return .ioError
            }
        case (nil, nil):
            if !configuration.listen.isLoopback, !insecurePlaintext {
                throw UsageError("Refusing to serve plaintext on \(configuration.listen), which is not a loopback address: "
                                 + "tokens and expenses would cross the network unencrypted. Pass --tls-cert FILE --tls-key FILE "
                                 + "(make them with 'expensed tls init'), or --insecure-plaintext on a trusted network",
                                 path: command.path)
            }
        default:
            throw UsageError("--tls-cert and --tls-key go together", path: command.path)
        }
        var upkeep = LedgerUpkeep(compactAfter: try command.choice(ExpensedOptions.compactAfter),
                                  idleClose: try command.choice(ExpensedOptions.idleLedgerClose) ?? LedgerUpkeep.defaultIdleClose,
                                  maximumOpen: try command.choice(ExpensedOptions.maxOpenLedgers) ?? LedgerUpkeep.defaultMaximumOpen)
        if let connections = try command.choice(ExpensedOptions.postgresConnections) {
            guard ExpensedCLI.postgresOption(command) != nil else {
                throw UsageError("--pg-connections goes with --postgres (a data directory's ledgers need no connections)",
                                 path: command.path)
            }
            upkeep.postgresConnections = connections
        }
        let log = ServerLog.standardError(level: try command.choice(ExpensedOptions.logLevel) ?? .info)
        if let conninfo = ExpensedCLI.postgresOption(command) {
            return await Self.servePostgres(configuration: configuration, conninfo: conninfo, upkeep: upkeep, log: log)
        }
        return await Self.serve(configuration: configuration, currency: currency,
                                data: ExpensedCLI.dataDirectory(command[ExpensedOptions.data]),
                                trustNetwork: insecurePlaintext, upkeep: upkeep, log: log)
    }

    /// What both kinds of daemon log and arm once listening: TLS (and its SIGHUP reload), the plaintext warning
    /// off loopback, the PROXY protocol sources.
    static func announceTransport(_ configuration: ServerConfiguration, server: Server, log: ServerLog) {
        if let identity = configuration.tls {
            log("serving TLS with \(identity.certificateFile) (\(identity.fingerprint.map { "\($0)" } ?? "fingerprint unknown"))")
            Self.reloadOnHangup(identity, log: log)
        } else if !server.address.isLoopback {
            log(.warning, "WARNING: listening on \(server.address), which is not a loopback address, in plaintext (--insecure-plaintext): "
                + "tokens and expenses travel unencrypted. Use --tls-cert/--tls-key unless this network is trusted.")
        }
        if !configuration.proxyProtocolSources.isEmpty {
            log("expecting a PROXY protocol header first on connections from "
                + configuration.proxyProtocolSources.map(\.description).joined(separator: ", "))
        }
    }

    /// SIGHUP reloads the certificate and key (renewed by an ACME tool): new connections get them, open ones keep
    /// theirs. The handler is installed synchronously, so a SIGHUP after `listening on` never kills the daemon.
    private static func reloadOnHangup(_ identity: TLSServerIdentity, log: ServerLog) {
        let signals = cepoll_reload_signal_pipe()
        guard signals >= 0 else {
            log(.error, "cannot install the SIGHUP handler: \(String(cString: strerror(errno))); the certificate is not reloadable")
            return
        }
        let reload: @Sendable () -> Void = {
            var number: UInt8 = 0
            while true {
                guard (try? syscall(where: "read", { read(signals, &number, 1) })) == 1 else { return }
                do {
                    try identity.reload()
                    log("received SIGHUP; reloaded \(identity.certificateFile) (\(identity.fingerprint.map { "\($0)" } ?? "?"))")
                } catch {
                    log(.warning, "received SIGHUP; reload failed, still serving the previous certificate: \(error)")
                }
            }
        }
        do {
            try SystemThread.start(name: "tls-reloader", stackSize: 64 * 1024, reload)
        } catch {
            log(.error, "cannot start the SIGHUP thread: \(error); the certificate is not reloadable")
        }
    }

    /// SIGINT/SIGTERM become a graceful stop of `server` (StopSignal: installed synchronously, so a signal sent
    /// right after `listening on` cannot slip past it); a thread of its own waits for one. Both stores' `serve`.
    /// - Returns: `false` (logged) when the handler cannot be installed.
    static func stopOnSignal(_ server: Server, log: ServerLog) -> Bool {
        do {
            try StopSignal.install()
        } catch {
            log(.error, "cannot install the SIGINT/SIGTERM handler: \(error.reason)")
            return false
        }
        do {
            try SystemThread.start(name: "stop-signal", stackSize: 64 * 1024) {
                let number = StopSignal.wait()
                log("received \(number == SIGINT ? "SIGINT" : "SIGTERM"); finishing in-flight requests and stopping")
                server.stop()
            }
        } catch {
            log(.error, "cannot start the thread that waits for SIGINT/SIGTERM: \(error)")
            return false
        }
        return true
    }

    private static func serve(configuration: ServerConfiguration, currency: Currency, data: String,
                              trustNetwork: Bool, upkeep: LedgerUpkeep, log: ServerLog) async -> ExitCode {
        signal(SIGPIPE, SIG_IGN)
        // Nothing is created before the socket is bound: the directory object reads nothing yet; once the
        // address is ours (connections wait in the backlog until `start`), the directory's lock is taken and a
        // fresh directory gets `default`; each ledger is opened when first asked for (a damaged one is refused then).
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: data, creating: .later)
        } catch {
            log(.error, "cannot open the data directory \(data): \(error)")
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
        let lock: DataDirectoryLock
        do {
            // One daemon per data directory, taken before any ledger is opened (see DataDirectoryLock).
            lock = try DataDirectoryLock(directory: data)
            if let tokenPath = try directory.openDeferred(defaultCurrency: currency, log: log) {
                log("created ledger 'default' (\(currency.code)); its token is in \(tokenPath)")
            }
            // `expensed token revoke` beside the daemon closes the token's idle connections within this.
            directory.watchTokens(every: ExpensedCommands.tokenPollInterval)
            directory.closeUnusedLedgers(idle: upkeep.idle, maximum: upkeep.maximumOpen, log: log)
        } catch {
            // A damaged database is named by the error itself (`the database DIR/NAME.sqlite is damaged …`).
            log(.error, "cannot open the data directory \(data): \(error)")
            server.stop()
            await server.waitUntilStopped()
            await directory.close()
            return DaemonFailure.exitCode(for: error)
        }
        Self.announceTransport(configuration, server: server, log: log)
        guard Self.stopOnSignal(server, log: log) else {
            await directory.close()
            return .failure
        }
        // The start run of `--compact-after` is queued on the ledgers' threads before the first request can be.
        let compaction = upkeep.compactAfter.map { CompactionTimer(directory: directory, keepDays: $0, log: log) }
        server.start()
        log("expensed \(ServerConfiguration.version) serving the ledgers of \(data) (each opened when first asked for) on \(server.address)")
        // The first stdout line, written in one unbuffered `write` once the listening socket accepts.
        ExpensedCLI.printOut("listening on \(server.address)\n")
        await server.waitUntilStopped()
        compaction?.cancel()
        await directory.close()
        withExtendedLifetime(lock) {}  // held until every ledger is closed
        log("stopped")
        return .success
    }
}
