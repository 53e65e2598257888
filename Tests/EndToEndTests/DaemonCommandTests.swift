import TestSupport
import ExpenseTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `expensed` binary, run as a real process: help, usage errors, serving, ledgers, backup, damaged files,
/// signals and crash recovery. Every daemon listens on port 0 with its data in a temporary directory; readiness is
/// the `listening on` line read from the pipe, never a sleep.
@Suite struct DaemonCommandTests {
    private static let daemon = ExpenseProcess.daemonExecutable

    @Test(arguments: [[], ["serve"], ["ledger"], ["ledger", "add"], ["ledger", "list"], ["backup"], ["restore"]])
    func helpOfEverySubcommand(path: [String]) async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            for arguments in [path + ["--help"], path + ["-h"], ["help"] + path] {
                let result = try scratch.run(arguments, executable: Self.daemon)
                #expect(result.status == 0, "\(arguments): \(result)")
                #expect(result.stderr == "")
                for section in ["OVERVIEW: ", "USAGE: expensed" + path.map { " " + $0 }.joined(), "OPTIONS:", "-h, --help",
                                "EXIT CODES:", " 64  usage error", " 74  I/O error", "EXPENSED_DATA"] {
                    #expect(result.stdout.contains(section), "\(arguments) lacks \(section)")
                }
            }
            let version = try scratch.run(["--version"], executable: Self.daemon)
            #expect(version.status == 0 && version.stdout.hasPrefix("expensed ") && version.stderr == "")
        }
    }

    @Test func helpDocumentsEveryOption() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let serve = try scratch.run(["serve", "--help"], executable: Self.daemon).stdout
            for option in ["--data <dir>", "--listen <host:port>", "--currency <code>", "--max-connections <n>",
                           "--max-line <bytes>", "--idle-timeout <seconds>", "--trust-network", "listening on HOST:PORT"] {
                #expect(serve.contains(option), "serve --help lacks \(option)")
            }
            let root = try scratch.run(["--help"], executable: Self.daemon).stdout
            #expect(root.contains("serve (default)"))
            let backup = try scratch.run(["backup", "--help"], executable: Self.daemon).stdout
            #expect(backup.contains("USAGE: expensed backup <file> [--data <dir>] [--postgres <conninfo>] --ledger <name>"))
            let list = try scratch.run(["ledger", "list", "--help"], executable: Self.daemon).stdout
            #expect(list.contains("--json"))
        }
    }

    @Test(arguments: [
        (["serve", "--nope"], "Unknown option '--nope'", "expensed serve"),
        (["--nope"], "Unknown option '--nope'", "expensed serve"),
        (["--listen"], "Missing value for '--listen <host:port>'", "expensed serve"),
        (["serve", "--listen", "no-port"], "Invalid value for '--listen'", "expensed serve"),
        (["serve", "--max-line", "12"], "Invalid value for '--max-line'", "expensed serve"),
        (["serve", "--max-connections", "lots"], "Invalid value for '--max-connections'", "expensed serve"),
        (["serve", "--currency", "usd"], "'usd' is not an active ISO 4217 currency code", "expensed serve"),
        (["serve", "--proxy-protocol", "10.0.0.1/8"], "Invalid value for '--proxy-protocol': invalid address range '10.0.0.1/8'", "expensed serve"),
        (["serve", "--proxy-protocol", "127.0.0.1,,::1"], "Invalid value for '--proxy-protocol'", "expensed serve"),
        (["serve", "--proxy-protocol", "lb.example"], "Invalid value for '--proxy-protocol': invalid address range 'lb.example'", "expensed serve"),
        (["serve", "extra"], "Unexpected argument 'extra'", "expensed serve"),
        (["serve", "--pg-connections", "4"], "--pg-connections goes with --postgres", "expensed serve"),
        (["serve", "--pg-connections", "0"], "Invalid value for '--pg-connections'", "expensed serve"),
        (["serve", "--log-level", "loud"], "'loud' is not a log level: give debug, info, warning or error", "expensed serve"),
        (["frobnicate"], "Unknown subcommand 'frobnicate'", "expensed"),
        (["ledger", "nope"], "Unknown subcommand 'nope'", "expensed ledger"),
        (["ledger", "add"], "Missing expected argument '<name>'", "expensed ledger add"),
        (["ledger", "add", "Bad!"], "invalid ledger name 'Bad!'", "expensed ledger add"),
        (["ledger", "list", "--json=yes"], "The flag '--json' does not take a value", "expensed ledger list"),
        (["backup", "out.sqlite"], "Missing expected argument '--ledger <name>'", "expensed backup"),
        (["backup", "--ledger", "default"], "Missing expected argument '<file>'", "expensed backup"),
    ])
    func usageErrorsExit64WithThreeLines(arguments: [String], message: String, command: String) async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            // --data points into the scratch directory, so a parser that wrongly went on could not touch a real one.
            let result = try scratch.run(arguments, environment: ["EXPENSED_DATA": scratch.directory + "/data"], executable: Self.daemon)
            #expect(result.status == 64, "\(result)")
            #expect(result.stdout == "")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.count == 4 && lines.last == "", "\(result)")
            #expect(lines.first?.hasPrefix("Error: " + message) == true, "\(result)")
            #expect(lines.dropFirst().first?.hasPrefix("Usage: " + command) == true, "\(result)")
            #expect(lines.dropFirst(2).first == "See '\(command) --help' for more information.", "\(result)")
            #expect(!FileManager.default.fileExists(atPath: scratch.directory + "/data"), "a usage error touched the disk")
        }
    }

    @Test func serveCreatesTheDefaultLedgerAndStopsOnSIGTERM() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let address = try daemon.address()
            #expect(address.port != 0)
            let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
            #expect(Self.isToken(token))
            #expect(try Self.mode(data + "/default.token") == 0o600)
            #expect(FileManager.default.fileExists(atPath: data + "/default.sqlite"))
            // The daemon answers, with the token from the file.
            let client = try WireClient(address)
            #expect(try client.hello(token: token).lastMutationId == 0)
            client.close()

            let stopped = daemon.stop(SIGTERM)
            #expect(stopped.reason == .exit && stopped.status == 0, "\(daemon.stderr)")
            #expect(daemon.restOfStdout() == "", "`listening on` must be the only stdout line")
            let stderr = daemon.stderr
            #expect(stderr.contains(data + "/default.token"), "stderr does not say where the token is: \(stderr)")
            #expect(!stderr.contains(token), "the token was logged")
        }
    }

    @Test func ledgerAddPrintsOnlyTheTokenAndListShowsIt() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)

            // Added while the daemon runs: it serves the new ledger from its first hello.
            let added = try scratch.run(["ledger", "add", "work", "--currency", "EUR", "--data", data], executable: Self.daemon)
            #expect(added.status == 0 && added.stderr == "", "\(added)")
            let token = added.stdout.trimmingCharacters(in: .newlines)
            #expect(Self.isToken(token) && added.stdout == token + "\n")
            #expect(try String(contentsOfFile: data + "/work.token", encoding: .utf8) == token + "\n")
            #expect(try Self.mode(data + "/work.token") == 0o600)

            let list = try scratch.run(["ledger", "list", "--data", data], executable: Self.daemon)
            #expect(list.status == 0 && list.stdout == "default USD\nwork EUR\n", "\(list)")
            let json = try scratch.run(["ledger", "list", "--json"], environment: ["EXPENSED_DATA": data], executable: Self.daemon)
            let items = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]])
            #expect(items == [["name": "default", "currency": "USD"], ["name": "work", "currency": "EUR"]])

            let again = try scratch.run(["ledger", "add", "work", "--data", data], executable: Self.daemon)
            #expect(again.status == 1 && again.stdout == "" && again.stderr.contains("ledger_exists"), "\(again)")

            let client = try WireClient(try daemon.address())
            #expect(try client.hello(token: token, ledger: "work").currency.code == "EUR")
            client.close()
            #expect(daemon.stop().status == 0)
        }
    }

    @Test func backupWhileTheDaemonRunsGivesADatabaseFile() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let client = try WireClient(try daemon.address())
            _ = try client.hello(token: try Self.token(data))
            _ = try client.pushCreates(count: 50, firstMutationId: 1)

            let file = scratch.directory + "/backup.sqlite"
            let backup = try scratch.run(["backup", "--data", data, "--ledger", "default", file], executable: Self.daemon)
            #expect(backup.status == 0 && backup.stdout == "" && backup.stderr == "", "\(backup)")
            let header = try #require(FileHandle(forReadingAtPath: file)).readData(ofLength: 16)
            #expect(header == Data("SQLite format 3\0".utf8))

            let overwrite = try scratch.run(["backup", "--data", data, "--ledger", "default", file], executable: Self.daemon)
            #expect(overwrite.status == 1 && overwrite.stderr.contains("backup_target_exists"), "\(overwrite)")
            let unknown = try scratch.run(["backup", "--data", data, "--ledger", "nope", file + "2"], executable: Self.daemon)
            #expect(unknown.status == 1 && unknown.stderr.contains("unknown_ledger"), "\(unknown)")

            // The copy is a ledger like any other: a daemon serves it, with every record.
            let restored = scratch.directory + "/restored"
            try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: file, toPath: restored + "/default.sqlite")
            try FileManager.default.copyItem(atPath: data + "/default.token", toPath: restored + "/default.token")
            let second = try DaemonProcess.serve(data: restored, scratch: scratch.directory)
            let reader = try WireClient(try second.address())
            _ = try reader.hello(token: try Self.token(data))
            #expect(try reader.pullAll().count == 50)
            client.close()
            reader.close()
            #expect(second.stop().status == 0)
            #expect(daemon.stop().status == 0)
        }
    }

    /// Ledgers are opened when first asked for, not at start (start time and memory must not grow with the
    /// number of ledgers on disk): a damaged file is refused then, named in the log once, never served, and the
    /// daemon goes on serving the other ledgers.
    @Test func aDamagedLedgerIsRefusedWhenAskedForAndTheOthersAreServed() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let created = try scratch.run(["ledger", "add", "default", "--data", data], executable: Self.daemon)
            #expect(created.status == 0 && Self.isToken(created.stdout.trimmingCharacters(in: .newlines)), "\(created)")
            let work = try scratch.run(["ledger", "add", "work", "--data", data], executable: Self.daemon)
            let workToken = work.stdout.trimmingCharacters(in: .newlines)
            let database = data + "/default.sqlite"
            let size = try #require(try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
            var generator = SystemRandomNumberGenerator()
            let garbage = Data((0..<max(size, 8192)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try garbage.write(to: URL(fileURLWithPath: database))
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }

            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let client = try WireClient(try daemon.address())
            #expect(try client.hello(token: workToken, ledger: "work").currency.code == "USD")
            client.close()
            for _ in 0..<2 {
                let refused = try WireClient(try daemon.address())
                #expect(throws: (any Error).self) { try refused.hello(token: try Self.token(data), ledger: "default") }
                refused.close()
            }
            #expect(daemon.stop().status == 0)
            let lines = daemon.stderr.split(separator: "\n").filter { $0.contains(database) }
            #expect(lines.count == 1 && lines[0].contains("damaged") && lines[0].contains("not served"), "\(daemon.stderr)")
        }
    }

    @Test func anAddressInUseExits69() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let first = try DaemonProcess.serve(data: scratch.directory + "/one", scratch: scratch.directory)
            let taken = try first.address().description
            let second = try DaemonProcess(["--listen", taken, "--data", scratch.directory + "/two"], scratch: scratch.directory)
            #expect(second.firstLine == nil)
            let exit = second.waitForExit()
            #expect(exit.reason == .exit && exit.status == 69, "\(second.stderr)")
            #expect(second.stderr.contains(taken))
            #expect(first.stop().status == 0)
        }
    }

    /// A file where the data directory should be is an I/O error (74), not "permission denied" (77).
    @Test func aFileAsTheDataDirectoryExits74() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let file = scratch.directory + "/not-a-directory"
            _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
            let daemon = try DaemonProcess(["serve", "--listen", "127.0.0.1:0", "--data", file], scratch: scratch.directory)
            #expect(daemon.firstLine == nil)
            let exit = daemon.waitForExit()
            #expect(exit.reason == .exit && exit.status == 74, "\(daemon.stderr)")
            #expect(daemon.stderr.contains(file) && daemon.stderr.contains("not a directory"))
        }
    }

    @Test func everyAcknowledgedPushSurvivesKill9() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let token = try Self.token(data)
            let client = try WireClient(try daemon.address())
            _ = try client.hello(token: token)
            var acknowledged: [UUID: Int64] = [:]
            for push in 0..<20 {
                let created = try client.pushCreates(count: 5, firstMutationId: Int64(push * 5 + 1))
                acknowledged.merge(created) { $1 }
            }
            #expect(acknowledged.count == 100)
            let killed = daemon.stop(SIGKILL)
            #expect(killed.reason == .uncaughtSignal)
            client.close()

            let restarted = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            let reader = try WireClient(try restarted.address())
            #expect(try reader.hello(token: token, clientId: client.clientId).lastMutationId == 100)
            let records = try reader.pullAll()
            var found: [UUID: Int64] = [:]
            for record in records { found[record.expense.id] = record.expense.amount }
            #expect(found == acknowledged)
            reader.close()
            #expect(restarted.stop(SIGINT).status == 0)
        }
    }

    // MARK: - Helpers

    private static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func token(_ data: String) throws -> String {
        try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    private static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
