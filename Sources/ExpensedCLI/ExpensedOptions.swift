import CommandLineKit
import ExpenseCore
import ExpenseProtocol
import ExpenseServer
import ExpenseTransport
import FoundationEssentials

/// Every option and flag of `expensed`, each declared once with its type: the specs in ``ExpensedCommands`` are
/// built from these and the run functions read them (`command[json]`, `try command.choice(maxLine)`), never a
/// name. A command gives a shared one its own help with `.help(…)`.
enum ExpensedOptions {
    // Where the ledgers are.

    /// `--data`: the data directory (``ExpensedCLI/dataDirectory(_:)`` applies the defaults).
    static let data = TypedOption<String>.text(
        "data", value: "dir", help: "The data directory (default: $EXPENSED_DATA, else ~/.local/share/expensed).")
    /// `--postgres`: a PostgreSQL database instead (``ExpensedCLI/postgresOption(_:)`` applies the default).
    static let postgres = TypedOption<String>.text("postgres", value: "conninfo", help:
        "Use every ledger of this PostgreSQL database instead of a data directory: a libpq `key=value` string or a postgresql:// URI (default: $EXPENSED_POSTGRES). Its password is never logged.")
    /// `--ledger NAME`, required wherever it is an option (each command says which ledger).
    static let ledger = TypedOption<String>.text("ledger", value: "name", help: "The ledger.", required: true)
    /// `migrate --ledger NAMES`.
    static let ledgers = TypedOption<String>.text(
        "ledger", value: "names", help: "The ledgers to copy, separated by commas (default: every ledger of the source).")
    /// `migrate --from-sqlite`.
    static let fromSQLite = TypedOption<String>.text("from-sqlite", value: "dir", help: "Copy from the ledgers of this data directory.")
    /// `migrate --to-postgres`.
    static let toPostgres = TypedOption<String>.text(
        "to-postgres", value: "conninfo", help: "Copy into this PostgreSQL database (libpq conninfo).")
    /// `migrate --from-postgres`.
    static let fromPostgres = TypedOption<String>.text(
        "from-postgres", value: "conninfo", help: "Copy from the ledgers of this PostgreSQL database.")
    /// `migrate --to-sqlite`.
    static let toSQLite = TypedOption<String>.text("to-sqlite", value: "dir", help: "Copy into this data directory (created if missing).")

    // Flags.

    /// `--json` of `ledger list` and `token list`.
    static let json = Flag("json", help: "Print JSON.")
    /// `ledger list --names`.
    static let names = Flag("names", help: "Names only, one per line: read from the directory's listing, no ledger file opened "
                                           + "(instant with 100,000 ledgers, where reading each currency took 39 s).")
    /// `tls init --force`.
    static let force = Flag("force", help: "Replace existing tls.crt and tls.key.")
    /// `serve --insecure-plaintext`.
    static let insecurePlaintext = Flag(
        "insecure-plaintext", help: "Allow plaintext on an address that is not a loopback address (a trusted network only).")
    /// `serve --trust-network`: the old name of ``insecurePlaintext``.
    static let trustNetwork = Flag("trust-network", help: "The same as --insecure-plaintext (kept for existing scripts).")

    // Values.

    /// `--currency` of `serve` and `ledger add` (default: USD, applied where it is read).
    static let currency = TypedOption<Currency>("currency", value: "code", help: "The ledger's currency (default: USD).") { code in
        guard let currency = Currency(code: code) else {
            throw OptionValueError("'\(code)' is not an active ISO 4217 currency code (such as USD or EUR)")
        }
        return currency
    }
    /// `serve --listen`.
    static let listen = TypedOption<SocketAddress>(
        "listen", value: "host:port", help: "The address to listen on (default: 127.0.0.1:7468; port 0 picks a free port).") { text in
        do { return try SocketAddress(parsing: text) } catch { throw OptionValueError("Invalid value for '--listen': \(error)") }
    }
    /// `serve --max-connections`.
    static let maxConnections = TypedOption<Int>.integer(
        "max-connections", value: "n", help: "Connections held at once, 1 to 1000000; more get `busy` (default: 4096).", in: 1...1_000_000)
    /// `serve --max-line`.
    static let maxLine = TypedOption<Int>.integer(
        "max-line", value: "bytes", help: "The longest request line, 256 to 1073741824 (default: 1048576).", in: 256...(1 << 30))
    /// `serve --idle-timeout`, in seconds.
    static let idleTimeout = TypedOption<Int>.integer(
        "idle-timeout", value: "seconds", help: "Close authenticated connections silent this long; 0: never (default: 0).",
        in: 0...(365 * 86_400))
    /// `serve --tls-cert`.
    static let tlsCertificate = TypedOption<String>.text(
        "tls-cert", value: "file", help: "Serve TLS with this PEM certificate chain (with --tls-key; SIGHUP reloads both).")
    /// `serve --tls-key`.
    static let tlsKey = TypedOption<String>.text(
        "tls-key", value: "file", help: "The PEM private key of --tls-cert; refused if its group or others may read it.")
    /// `serve --proxy-protocol`: at least one address or CIDR range, comma-separated.
    static let proxyProtocol = TypedOption<[IPAddressRange]>(
        "proxy-protocol", value: "from",
        help: "Addresses or CIDR ranges of load balancers, comma-separated (127.0.0.1,10.0.0.0/8,::1): their connections must start with a PROXY protocol v1 or v2 header (default: none).") { text in
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace }
        guard !items.contains(where: \.isEmpty) else {
            throw OptionValueError("Invalid value for '--proxy-protocol': expected addresses or CIDR ranges separated by commas, not '\(text)'")
        }
        return try items.map { item in
            do { return try IPAddressRange(parsing: item) } catch { throw OptionValueError("Invalid value for '--proxy-protocol': \(error)") }
        }
    }
    /// `serve --log-level`.
    static let logLevel = TypedOption<ServerLog.Level>(
        "log-level", value: "level",
        help: "Log lines of this level and above: debug (also one line per push), info (the default: hellos, ledgers opened and closed, start and stop), warning, error.") { text in
        guard let level = ServerLog.Level(name: text) else {
            throw OptionValueError("'\(text)' is not a log level: give debug, info, warning or error")
        }
        return level
    }
    /// `serve --compact-after`, in days.
    static let compactAfter = TypedOption<Int>.integer(
        "compact-after", value: "days",
        help: "Compact every ledger at start and then daily, keeping N days (1 to 36500) of tombstones and history (default: never).",
        in: 1...36_500)
    /// `serve --idle-ledger-close`, in seconds (0: never).
    static let idleLedgerClose = TypedOption<Int>.integer(
        "idle-ledger-close", value: "seconds",
        help: "Close a ledger no connection has used for this many seconds, 0 to 86400 (0: never; default: 300); it opens again when next asked for.",
        in: 0...86_400)
    /// `serve --max-open-ledgers`.
    static let maxOpenLedgers = TypedOption<Int>.integer(
        "max-open-ledgers", value: "n",
        help: "Keep at most N ledgers open, 1 to 1000000, closing the least recently used unused one to open another (default: 500; a ledger in use is never closed).",
        in: 1...1_000_000)
    /// `serve --pg-connections`.
    static let postgresConnections = TypedOption<Int>.integer(
        "pg-connections", value: "n",
        help: "With --postgres: share at most N PostgreSQL connections among the open ledgers, 1 to 10000 (default: 15, so with its LISTEN connection a daemon holds at most 16); a ledger holds one only while it has work.",
        in: 1...10_000)
    /// `compact --keep-days`.
    static let keepDays = TypedOption<Int>.integer(
        "keep-days", value: "n", help: "Keep what changed in the last N days, 0 to 36500.", in: 0...36_500, required: true)
    /// `tls init --host`: the names, comma-separated.
    static let hosts = TypedOption<String>.text("host", value: "names", help: "Host names and IP addresses clients connect to, comma-separated.")
    /// `token add --role`: owner, editor or viewer.
    static let role = TypedOption<TokenRole>.choice("role", value: "role", help: ExpensedCommands.roleHelp, required: true)
}
