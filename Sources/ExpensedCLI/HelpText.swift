/// The help pages of `expensed` (printed to stdout by `--help`, exit 0).
enum HelpText {
    static let exitCodes = """
    EXIT CODES:
      0   success
      1   failure (the data directory, a damaged database, the address cannot be bound…)
      64  usage error
    """

    static func usage(_ command: String) -> String {
        switch command {
        case "serve": "expensed serve [--data DIR] [--listen HOST:PORT] [--currency CODE] [--max-connections N] [--max-line BYTES] [--idle-timeout SECONDS] [--trust-network]"
        case "ledger add": "expensed ledger add NAME [--currency CODE] [--data DIR]"
        case "ledger list": "expensed ledger list [--data DIR]"
        case "ledger": "expensed ledger <add|list> …"
        case "backup": "expensed backup --data DIR --ledger NAME FILE"
        default: "expensed [serve|ledger|backup] [OPTIONS]"
        }
    }

    static func page(_ command: String) -> String {
        switch command {
        case "serve": """
            OVERVIEW: Serve the ledgers of a data directory over newline-delimited JSON-RPC on TCP.

            Prints exactly `listening on HOST:PORT` on stdout once it accepts connections (the real port when
            given port 0). On first start with an empty data directory it creates the ledger `default` and writes
            its token to DIR/default.token (mode 0600). Logs go to stderr. SIGINT/SIGTERM stop it gracefully.

            USAGE: \(usage(command))

            OPTIONS:
              --data DIR              Data directory (default: $EXPENSED_DATA, else ~/.local/share/expensed)
              --listen HOST:PORT      Address to listen on (default: 127.0.0.1:7468; port 0 picks a free port)
              --currency CODE         Currency of the `default` ledger created at first start (default: USD)
              --max-connections N     Connections held at once; more get `busy` (default: 4096)
              --max-line BYTES        Longest request line (default: 1048576)
              --idle-timeout SECONDS  Close authenticated connections silent this long (default: 0, never)
              --trust-network         Do not warn when listening on a non-loopback address
              -h, --help              Show this help

            \(exitCodes)
            """
        case "ledger add": """
            OVERVIEW: Create a ledger and print its token (only the token) on stdout.

            The token is also written to DIR/NAME.token (mode 0600). A running daemon serves the new ledger at
            its first hello.

            USAGE: \(usage(command))

            ARGUMENTS:
              NAME                    1 to 64 of a-z, 0-9, '-', '_', starting with a letter or digit

            OPTIONS:
              --currency CODE         The ledger's currency (default: USD)
              --data DIR              Data directory (default: $EXPENSED_DATA, else ~/.local/share/expensed)
              -h, --help              Show this help

            \(exitCodes)
            """
        case "ledger list": """
            OVERVIEW: List the ledgers of the data directory, one `NAME CURRENCY` per line.

            USAGE: \(usage(command))

            OPTIONS:
              --data DIR              Data directory (default: $EXPENSED_DATA, else ~/.local/share/expensed)
              -h, --help              Show this help

            \(exitCodes)
            """
        case "ledger": """
            OVERVIEW: Manage the ledgers of a data directory.

            USAGE: \(usage(command))

            SUBCOMMANDS:
              add NAME                Create a ledger and print its token
              list                    List the ledgers

            See 'expensed ledger <subcommand> --help' for more information.
            """
        case "backup": """
            OVERVIEW: Copy a ledger consistently into FILE with SQLite's online backup API, also while the
            daemon runs. FILE must not exist.

            USAGE: \(usage(command))

            ARGUMENTS:
              FILE                    The backup file to create

            OPTIONS:
              --data DIR              Data directory (default: $EXPENSED_DATA, else ~/.local/share/expensed)
              --ledger NAME           The ledger to back up
              -h, --help              Show this help

            \(exitCodes)
            """
        default: """
            OVERVIEW: expensed, the authoritative daemon of the expense ledger.

            USAGE: \(usage(command))

            Plain `expensed` is `expensed serve` with the defaults.

            SUBCOMMANDS:
              serve                   Serve the ledgers over TCP (the default)
              ledger add NAME         Create a ledger and print its token
              ledger list             List the ledgers
              backup                  Back up a ledger while the daemon runs

            OPTIONS:
              -h, --help              Show this help
              --version               Show the version

            See 'expensed <subcommand> --help' for more information.

            \(exitCodes)
            """
        }
    }
}
