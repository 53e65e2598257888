import CommandLineKit

/// The `expensed` command tree: the single source of its parsing and of its help text.
enum ExpensedCommands {
    static let data = ExpensedOptions.data.spec
    static let postgres = ExpensedOptions.postgres.spec

    static let root = CommandSpec(
        name: "expensed",
        abstract: "The authoritative daemon of the expense ledger.",
        discussion: """
          Plain `expensed` is `expensed serve` with the defaults; `expensed --listen …` is `expensed serve --listen …`.
          Each ledger is one SQLite database DIR/NAME.sqlite, holding the SHA-256 of each of its named tokens
          (never a token); `ledger add` writes the first one, the owner token `default`, to DIR/NAME.token (mode 0600).
          With --postgres (or $EXPENSED_POSTGRES), serve, ledger, token and compact use every ledger of that
          PostgreSQL database instead of a data directory (see docs/deploy.md); backup reads a ledger from it
          into a SQLite ledger file, and restore is for data directories only.
        """,
        subcommands: [serve, ledger, token, backup, restore, compact, migrate, tls, completion, manual],
        defaultSubcommand: "serve")

    static let serve = CommandSpec(
        name: "serve", abstract: "Serve the ledgers of a data directory (or a PostgreSQL database) over newline-delimited JSON-RPC on TCP.",
        discussion: """
          Prints exactly `listening on HOST:PORT` as the first line on stdout once it accepts connections (the
          real port when given port 0). On first start with an empty or missing data directory it creates the
          directory and the ledger `default`, with its token in DIR/default.token (mode 0600), once it knows it
          can listen (an address in use creates nothing); the token is never printed or logged.
          A damaged database is refused at start, naming the file. One daemon serves a data directory at a time:
          it holds DIR/expensed.lock (flock) while it runs, and a second one exits 75 naming the directory and the
          holder's pid; `ledger add`, `ledger list`, `token …`, `backup` and `compact` work beside it. Logs go to stderr, one line per event.
          SIGINT/SIGTERM: stop accepting, finish in-flight requests, commit, exit 0.
          With --tls-cert and --tls-key it speaks TLS (1.2 at least, 1.3 preferred) under the same framing; a
          plaintext client is closed at once. SIGHUP reloads the certificate and key without dropping connections
          (new connections get the new ones; a reload that fails keeps the old ones and logs why). Listening on an
          address that is not a loopback address without TLS is refused (exit 64) unless --insecure-plaintext.
          Behind a load balancer (HAProxy's send-proxy or send-proxy-v2), --proxy-protocol FROM lists the proxies:
          a connection from one must start with a PROXY protocol header (before TLS), whose client address the
          login throttle and the log then see; a missing, malformed or late header closes the connection (logged).
          Connections from other addresses are direct clients (a header from them is refused as a bad line).
          With --postgres (or $EXPENSED_POSTGRES) it serves every ledger of that database instead, and any number
          of daemons may serve the same database at once (no lock; see docs/deploy.md). While PostgreSQL is
          unreachable requests are answered `storage_unavailable` (-32007) and the daemon reconnects with backoff.
        """,
        options: [
            data,
            ExpensedOptions.listen.spec,
            ExpensedOptions.currency.help("The currency of the `default` ledger created at first start (default: USD).").spec,
            ExpensedOptions.maxConnections.spec,
            ExpensedOptions.maxLine.spec,
            ExpensedOptions.idleTimeout.spec,
            ExpensedOptions.tlsCertificate.spec,
            ExpensedOptions.tlsKey.spec,
            ExpensedOptions.insecurePlaintext.spec,
            ExpensedOptions.trustNetwork.spec,
            ExpensedOptions.proxyProtocol.spec,
            ExpensedOptions.compactAfter.spec,
            ExpensedOptions.idleLedgerClose.spec,
            ExpensedOptions.maxOpenLedgers.spec,
            ExpensedOptions.postgresConnections.spec,
            ExpensedOptions.logLevel.spec,
            postgres,
        ])

    static let tls = CommandSpec(
        name: "tls", abstract: "Make the daemon's TLS certificate.",
        subcommands: [tlsInit])

    static let tlsInit = CommandSpec(
        name: "init", abstract: "Make a self-signed certificate and key for `serve --tls-cert/--tls-key`; print its fingerprint.",
        discussion: """
          Writes DIR/tls.crt and DIR/tls.key (both mode 0600; an EC P-256 key, valid 825 days) with the --host names in
          subjectAltName (default: localhost, 127.0.0.1, ::1), and prints `sha256:HEX`, the certificate's SHA-256
          fingerprint, for `expense remote set tls://HOST:PORT --pin sha256:HEX`. Existing files are not replaced
          unless --force. Then serve with `expensed serve --tls-cert DIR/tls.crt --tls-key DIR/tls.key`.
        """,
        options: [data,
                  ExpensedOptions.hosts.spec,
                  ExpensedOptions.force.spec])

    static let ledger = CommandSpec(
        name: "ledger", abstract: "Manage the ledgers of a data directory.",
        subcommands: [ledgerAdd, ledgerList])

    static let ledgerAdd = CommandSpec(
        name: "add", abstract: "Create a ledger and print its token (only the token) on stdout.",
        discussion: """
          The token is also written to DIR/NAME.token (mode 0600; with --postgres it is only printed). A running
          daemon serves the new ledger from its first `hello`. A missing data directory is created (mode 0700) with only this ledger in it.
        """,
        arguments: [ExpensedArguments.name.help("1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit.").spec],
        options: [ExpensedOptions.currency.spec, data, postgres])

    static let ledgerList = CommandSpec(
        name: "list", abstract: "List the ledgers of the data directory (or database), one `NAME CURRENCY` per line.",
        discussion: """
          Creates nothing: a data directory that does not exist is an error (exit 74), not a new one. Each currency is
          read from its ledger's file (about 0.25 ms a ledger, printed as it goes); --names reads the directory's
          listing alone.
        """,
        options: [data, ExpensedOptions.names.spec,
                  ExpensedOptions.json.help("Print a JSON array of {\"name\",\"currency\"} objects ({\"name\"} with --names).").spec,
                  postgres])

    /// How often `serve` looks for token changes made by `expensed token` beside it (it also looks before
    /// every request that reaches a ledger).
    static let tokenPollInterval = Duration.seconds(1)

    static let roleHelp = "owner, editor or viewer: a viewer may read (pull, summary, stats, history, watch); an editor may also push; an owner may also use owner-only methods (none yet)."

    static let token = CommandSpec(
        name: "token", abstract: "Manage the named tokens of a ledger: one per device or person, each with a role.",
        discussion: """
          A ledger keeps only the SHA-256 of each token. These commands work beside a running daemon: it takes a
          change in before the next request that reaches the ledger, and within a second when none comes. With
          --postgres they change the ledger in that database, and every daemon serving it takes the change in.
        """,
        subcommands: [tokenAdd, tokenList, tokenRevoke])

    static let tokenAdd = CommandSpec(
        name: "add", abstract: "Make a token and print it (only the token) on stdout: the only copy.",
        discussion: """
          The token is shown once and never stored: keep it (for example in the device's token file, given to
          `expense remote set --token-file`). A lost token cannot be shown again: revoke it and add another.
        """,
        arguments: [ExpensedArguments.name.help("The token's name: 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit.").spec],
        options: [
            ExpensedOptions.ledger.help("The ledger the token opens.").spec,
            ExpensedOptions.role.spec,
            data, postgres,
        ])

    static let tokenList = CommandSpec(
        name: "list", abstract: "List a ledger's tokens: name, role, when made, when last used (never a token).",
        discussion: "  Times are UTC (ISO 8601); the daemon writes last use about once a second, `never` when none.",
        options: [
            ExpensedOptions.ledger.help("The ledger whose tokens to list.").spec,
            data, postgres,
            ExpensedOptions.json.help("Print a JSON array of {\"name\",\"role\",\"created\",\"lastUsed\"} objects (lastUsed null when never).").spec,
        ])

    static let tokenRevoke = CommandSpec(
        name: "revoke", abstract: "Remove a token: a running daemon closes its connections and refuses it from now on.",
        discussion: """
          A `hello` with the token is refused (-32001) from the moment this command returns; the daemon closes
          the connections already open with it within a second (at once when they send a request).
        """,
        arguments: [ExpensedArguments.name.help("The token to remove.").spec],
        options: [ExpensedOptions.ledger.help("The ledger the token opens.").spec, data, postgres])

    static let backup = CommandSpec(
        name: "backup", abstract: "Copy a ledger consistently into a new file, also while the daemon runs.",
        discussion: """
          Uses SQLite's online backup API. FILE must not exist; the copy is a ledger database like any other.
          With --postgres the ledger is read from PostgreSQL in one consistent snapshot (REPEATABLE READ), also
          while daemons serve it, and written to FILE as the same kind of SQLite ledger database: `expensed
          restore FILE` puts it into a data directory, which `serve --data` serves and `migrate` moves back.
        """,
        arguments: [ExpensedArguments.file.help("The backup file to create.").spec],
        options: [data, postgres, ExpensedOptions.ledger.help("The ledger to back up.").spec])

    static let restore = CommandSpec(
        name: "restore", abstract: "Replace a ledger with a backup made by `expensed backup`; clients heal on their next sync.",
        discussion: """
          Refused while a daemon serves the data directory (it holds DIR/expensed.lock; exit 75): stop it, restore,
          start it again. FILE is checked (integrity_check, a ledger of that NAME, the same ledger id) and never
          changed; it is copied beside NAME.sqlite, given a new history epoch (clients see it in `hello` and
          heal: they re-send every change the daemon no longer has), and renamed over NAME.sqlite atomically.
          The replaced database is kept as NAME.sqlite.replaced-<time>-<id>; delete it once you are sure.
        """,
        arguments: [ExpensedArguments.file.help("The backup file (made by `expensed backup`).").spec],
        options: [data, ExpensedOptions.ledger.help("The ledger to replace.").spec])

    static let completion = CompletionScript.command(program: "expensed")

    static let manual = ManualPage.command(program: "expensed", section: 8)

    /// Exit codes and environment, appended to every help page.
    static let footer = """
        EXIT CODES:
          0  success (serve: stopped by SIGINT or SIGTERM)
          1  failure (for example an unknown ledger or token, an existing ledger, token or backup file)
         64  usage error (a wrong command line, or plaintext on an address that is not loopback)
         65  invalid data (restore: FILE is not a sound backup of that ledger)
         69  the listen address is unavailable (in use, or not an address of this machine)
         74  I/O error: the data directory or a database cannot be read or written, or a database is damaged
         75  the data directory is in use: another `expensed serve` holds DIR/expensed.lock; the message
             names its pid (serve, restore)
         77  permission denied (the data directory, a port the user may not bind, or a TLS key file its
             group or others may read)

        ENVIRONMENT:
          EXPENSED_DATA      The data directory when --data is not given.
          EXPENSED_POSTGRES  The PostgreSQL connection string when --postgres is not given.
        """

    /// The man page `expensed man` prints (docs/man/expensed.8 is this page, kept in sync by a test).
    static func manualPage(version: String) -> ManualPage {
        ManualPage(section: 8, date: "2026-12-01", source: "expensed \(version)", footer: footer, seeAlso: ["expense(1)"])
    }
}
