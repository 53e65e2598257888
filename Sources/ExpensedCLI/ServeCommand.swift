import Dispatch
import ExpenseCore
import ExpenseServer
import ExpenseTransport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `expensed serve`: open the data directory, listen, serve until SIGINT/SIGTERM, then close cleanly.
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        if ExpensedCommand.wantsHelp(arguments) {
            print(HelpText.page("serve"))
            return 0
        }
        let configuration: ServerConfiguration
        let currency: Currency
        let data: String
        let trustNetwork: Bool
        do throws(UsageError) {
            let scanner = try ArgumentScanner(arguments, command: "serve",
                                              valued: ["--data", "--listen", "--currency", "--max-connections", "--max-line", "--idle-timeout"],
                                              flags: ["--trust-network"])
            try scanner.expectAtMost(0, command: "serve")
            var parsed = ServerConfiguration()
            if let listen = scanner.value("--listen") {
                do {
                    parsed.listen = try SocketAddress(parsing: listen)
                } catch {
                    throw UsageError(message: "--listen: \(error)", command: "serve")
                }
            }
            parsed.maximumConnections = try scanner.integer("--max-connections", in: 1...1_000_000, command: "serve") ?? parsed.maximumConnections
            parsed.maximumLineLength = try scanner.integer("--max-line", in: 256...(1 << 30), command: "serve") ?? parsed.maximumLineLength
            if let seconds = try scanner.integer("--idle-timeout", in: 0...(365 * 86_400), command: "serve") {
                parsed.idleTimeout = seconds == 0 ? nil : .seconds(seconds)
            }
            configuration = parsed
            currency = try ExpensedCommand.currencyOption(scanner, command: "serve")
            data = ExpensedCommand.dataDirectory(scanner.value("--data"))
            trustNetwork = scanner.flag("--trust-network")
        } catch {
            ExpensedCommand.printError("Error: \(error.message)\nUsage: \(HelpText.usage("serve"))\n"
                                       + "See 'expensed serve --help' for more information.")
            return 64
        }
        return await serve(configuration: configuration, currency: currency, data: data, trustNetwork: trustNetwork)
    }

    private static func serve(configuration: ServerConfiguration, currency: Currency, data: String, trustNetwork: Bool) async -> Int32 {
        let log = ServerLog.standardError
        signal(SIGPIPE, SIG_IGN)
        let directory: LedgerDirectory
        do {
            directory = try LedgerDirectory(dataDirectory: data, defaultCurrency: currency)
        } catch {
            log("cannot open the data directory \(data): \(error)")
            return 1
        }
        if let tokenPath = directory.createdDefaultTokenPath {
            log("created ledger 'default' (\(currency.code)); its token is in \(tokenPath)")
        }
        let server: Server
        do {
            server = try Server(configuration: configuration, ledgers: directory, log: log)
        } catch {
            log("cannot listen on \(configuration.listen): \(error)")
            await directory.close()
            return 1
        }
        if !server.address.isLoopback, !trustNetwork {
            log("WARNING: listening on \(server.address), which is not a loopback address. Tokens and expenses travel "
                + "unencrypted: put an SSH tunnel or a TLS terminator in front, or pass --trust-network if this network is trusted.")
        }
        // Signals are turned into a graceful stop; the default action (die mid-write) is disabled first.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                log("received \(number == SIGINT ? "SIGINT" : "SIGTERM"); finishing in-flight requests and stopping")
                server.stop()
            }
            source.resume()
            return source
        }
        server.start()
        let ledgers = directory.ledgers().map { "\($0.name) (\($0.currency.code))" }.joined(separator: ", ")
        log("expensed \(ServerConfiguration.version) serving \(ledgers) from \(data) on \(server.address)")
        print("listening on \(server.address)")
        fflush(nil)
        await server.waitUntilStopped()
        await directory.close()
        for source in sources { source.cancel() }
        log("stopped")
        return 0
    }
}
