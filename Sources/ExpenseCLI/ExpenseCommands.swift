import CommandLineKit

/// The `expense` command tree: the single source of its parsing and of its help text.
enum ExpenseCommands {
    static let version = "0.1.0"

    static let dateHelp = "A day written YYYY-MM-DD."

    static let root = CommandSpec(
        name: "expense",
        abstract: "Record what you spend, offline, from a terminal.",
        discussion: """
          Expenses are kept in $EXPENSE_HOME (default ~/.expense) in cache.sqlite. Amounts are exact decimals
          in the currency's minor unit (12.50 USD, 1250 JPY, 1.250 BHD), whatever the locale. A negative number
          can only be given after `--` (and is then refused as invalid). Arguments must be UTF-8 (else exit 65,
          invalid_text). Tables and summaries write money the way the locale does (1.234.567,50 € for de_DE,
          from LC_ALL, else `expense config set locale`, else LC_MONETARY, else LANG; C, POSIX or none: the plain
          1234567.50 EUR); --json, export and import always use plain decimals and minor units.
        """,
        subcommands: [add, list, edit, delete, summary, stats, report, export, importing, config, remote, sync, status, conflicts, resolve,
                      discard] + kindGroups.map(\.spec) + [balances, history, log, undo, completion, manual])

    /// The command group of each record kind besides expenses and settings, in the order the help lists them, and
    /// `tag`, the group that reads expenses' tags (a group run the same way, though tags are not a kind).
    static let kindGroups: [KindCommands] = [budgets, recurringRules, members, transfers, rates, rules, tagCommands]

    static let add = CommandSpec(
        name: "add", abstract: "Record an expense and print its id.",
        discussion: """
          --paid AMOUNT records what a payment in another currency was charged in the ledger's currency, as on a
          card statement (`expense add 120 food --currency CHF --paid 128.40` in a EUR ledger): every conversion
          into the ledger's currency (--in) counts that amount instead of a rate.

          --part CATEGORY=AMOUNT (once per part) puts part of one payment in another category
          (`expense add 84.20 food --part household=12.30 --part pharmacy=9.90`: the rest, 62.00, stays food).
          The parts add up to less than the amount; every total by category counts each part in its own.
        """,
        arguments: [ExpenseArguments.amount.help("The amount, such as 12.50 (at most the currency's decimal places).").spec,
                    ExpenseArguments.category.help("The category, such as food (1 to 64 characters).").spec],
        options: ExpenseFieldOptions.addSpecs)

    static let list = CommandSpec(
        name: "list", abstract: "List expenses by date.",
        options: [ExpenseOptions.from.help("Only expenses on or after this day.").spec,
                  ExpenseOptions.to.help("Only expenses on or before this day.").spec,
                  ExpenseOptions.categoryFilter.help("Only expenses of this category, or with a part in it.").spec,
                  ExpenseOptions.tagFilter.spec,
                  ExpenseOptions.json.help("Print a JSON array (amounts as integers in minor units).").spec])

    static let edit = CommandSpec(
        name: "edit", abstract: "Change fields of an expense.",
        arguments: [ExpenseArguments.id.spec],
        options: ExpenseFieldOptions.editSpecs)

    static let delete = CommandSpec(
        name: "delete", abstract: "Delete an expense.",
        arguments: [ExpenseArguments.id.spec])

    static let summary = CommandSpec(
        name: "summary", abstract: "Total expenses per currency, optionally by category or month.",
        discussion: """
          Categories are listed largest first, months in date order, each with its share in percent; in a terminal
          each gets a bar. --in CODE converts every amount with the ledger's rates (`expense rate`): the latest rate
          dated on or before the amount's valuation day, else the inverse of the latest reverse rate, else through
          the ledger's currency; never a later rate, never 1. Each amount is converted and rounded once (half to
          even), and a converted total is the sum of those amounts. An amount with no rate is not converted: it is
          listed after the totals (`plus 120.00 CHF not converted: …`), and standard error says how many. An
          expense with an amount charged (`add … --paid`) counts that amount, exactly, in the ledger's currency.
        """,
        options: [ExpenseOptions.summaryGrouping.spec,
                  ExpenseOptions.from.help("Only expenses on or after this day.").spec,
                  ExpenseOptions.to.help("Only expenses on or before this day.").spec,
                  ExpenseOptions.categoryFilter.spec,
                  ExpenseOptions.tagFilter.help("Only expenses with this tag (repeat: with every one; not with --server).").spec,
                  ExpenseOptions.member.spec,
                  ExpenseOptions.inCurrency.spec,
                  ExpenseOptions.valuation.spec,
                  ExpenseOptions.server.help("Ask the daemon for its totals (the authority) instead of totalling the local copy.").spec,
                  ExpenseOptions.json.help("Print JSON (amounts as integers in minor units; with --in, in, at and unconverted).").spec])

    static let export = CommandSpec(
        name: "export", abstract: "Write every expense, with its id, as CSV, JSON or an hledger or Beancount journal.",
        discussion: """
          CSV has the header `id,date,amount,currency,category,note` and amounts as decimal text; a cell starting
          with =, +, -, @, a tab or a carriage return gets a leading ' (after any 's already there) so that a
          spreadsheet shows it as text, and `expense import` removes it again. JSON is an array of
          {id, date, amount, currency, category, note} with amounts in minor units. --output files are
          replaced atomically and created with mode 0600. On a damaged cache it exports every row it can still
          read (from a private copy; the cache is never written) and exits 74 (partial_export) naming how many
          rows it could not read, or 0 with a warning when it read them all.

          hledger (which Ledger reads too) and beancount write a journal: each expense a balanced transaction on
          its date, Expenses:CATEGORY against --assets-account (a payer's cash below it when the expense names
          one), the note as its description and the id as the tag or metadata `id`; a shared expense also moves
          the members' Assets:Balances, and a recorded transfer too, so those equal `expense balances` and the
          Expenses accounts `expense summary`, per currency. Sorted by date, then id. Categories and names are
          escaped by the format's rules (see docs/usage.md); an account option the format cannot hold is refused
          (exit 64). A journal is not saved from a damaged cache.
        """,
        options: [ExpenseOptions.exportFormat.spec,
                  ExpenseOptions.output.spec,
                  ExpenseOptions.expensesAccount.spec,
                  ExpenseOptions.assetsAccount.spec])

    static let importing = CommandSpec(
        name: "import", abstract: "Add the expenses of a CSV or JSON file that are not here yet; nothing if any row is invalid.",
        discussion: """
          Reads our export: CSV with the header `id,date,amount,currency,category,note,paid_by,split,charged,tags`
          (id optional, columns in any order, paid_by and split optional and naming members by name or id, charged
          and tags optional, tags joined by commas in one cell; an empty currency
          means --currency, else the configured one) or JSON (detected: the file
          starts with `[`). A row whose id is stored already is skipped when identical and reported when it
          differs (the stored expense is kept); a row without an id gets one derived from its values and its
          occurrence among identical rows, so importing one file twice, or on two machines, adds it once.
          Prints `N new, M already present, K differing`, and `; R changed by rules` when the ledger's rules
          ran (`expense rule`: by default when it has any); with --dry-run each row is shown with what the
          rules changed and which rules changed it. A bad row is reported with its line (the header is
          line 1) or JSON item, and then nothing is imported.

          Bank exports: --map names the header of each field's column (other columns are ignored). Amounts of a
          mapped file (or with --decimal-comma) may carry a leading + and thousands separators (. or , whichever
          is not the decimal mark, a space, or '), grouped by three; a negative amount is a refund and is refused.

          --format splitwise reads Splitwise's CSV export (English headers): its member columns are added as
          members where the ledger has none of that name, each expense row becomes an expense paid by the member
          whose value is positive with an exact split, each Payment row a transfer (`settle list`).
        """,
        arguments: [ExpenseArguments.file.spec],
        options: [ExpenseOptions.dryRun.spec,
                  ExpenseOptions.importFormat.spec,
                  ExpenseOptions.map.spec,
                  ExpenseFieldOptions.currency.help("The currency of rows without one (default: the configured currency).").spec,
                  ExpenseOptions.delimiter.spec,
                  ExpenseOptions.decimalComma.spec,
                  ExpenseOptions.dateFormat.spec,
                  ExpenseOptions.rules.spec,
                  ExpenseOptions.noRules.spec],
        exclusiveGroups: [.atMostOne(ExpenseOptions.rules.spec, ExpenseOptions.noRules.spec)])

    static let config = CommandSpec(
        name: "config", abstract: "Show or change settings.",
        subcommands: [
            CommandSpec(name: "set", abstract: "Change a setting (currency, locale, timezone, me).",
                        discussion: """
                          currency: the default currency of `add` and `import`, an ISO 4217 code in any case (eur is EUR).
                          locale: how tables and summaries write money, such as de_DE, en_IN or ja_JP; C or POSIX for the
                          plain form; auto (the default) follows LC_MONETARY and LANG. LC_ALL, when set, wins over it.
                          timezone: the ledger's time zone, such as Europe/Berlin, synced to every machine: which day is
                          "today" for budgets; local (the default) uses each machine's own zone.
                          me: who you are on this machine, a member's name (`expense member add`): the payer of what
                          you add when --paid-by is not given. Kept on this machine only.
                        """,
                        arguments: [ExpenseArguments.key.spec,
                                    ExpenseArguments.value.spec]),
            CommandSpec(name: "get", abstract: "Print one setting, or every setting as `key value` lines.",
                        arguments: [ExpenseArguments.key.asOptional().spec]),
        ])

    static let remote = CommandSpec(
        name: "remote", abstract: "Show or set the daemon this copy syncs with.",
        subcommands: [
            CommandSpec(name: "set", abstract: "Set the daemon, the ledger and its token (stored in $EXPENSE_HOME, token mode 0600).",
                        discussion: """
                          tls://HOST:PORT verifies the daemon fully: a chain to the system's CAs (/etc/ssl/certs) or
                          --ca FILE, and HOST in the certificate. For a self-signed daemon pass --pin sha256:HEX (what
                          `expensed tls init` printed) or --trust-first (the first certificate seen is pinned, as ssh's
                          known_hosts; a different one later is refused, exit 77). Plain HOST:PORT is plaintext: only to
                          a loopback address unless --insecure-plaintext. There is never a fallback to plaintext.
                          Several addresses of the same ledger, HOST1:PORT1,HOST2:PORT2 (tls:// once in front, for all):
                          each sync starts at the one that worked last, tries the others in a shuffled order, and moves
                          on when one cannot be reached, breaks, times out, is busy or has lost its storage
                          (storage_unavailable); one serving another ledger is refused.
                        """,
                        arguments: [ExpenseArguments.server.spec],
                        options: [ExpenseOptions.ledger.asRequired().spec,
                                  ExpenseOptions.certificateAuthority.spec,
                                  ExpenseOptions.pin.spec,
                                  ExpenseOptions.trustFirst.spec,
                                  ExpenseOptions.insecurePlaintext.spec,
                                  ExpenseOptions.tokenFile.spec,
                                  ExpenseOptions.token.spec],
                        exclusiveGroups: [.exactlyOne(ExpenseOptions.tokenFile.spec, ExpenseOptions.token.spec)]),
            CommandSpec(name: "show", abstract: "Print the server and ledger (never the token); each address of a list."),
        ])

    static let sync = CommandSpec(
        name: "sync", abstract: "Push local changes to the daemon and pull everyone else's.",
        discussion: """
          Says hello, pushes the pending changes in batches (at most 1000 changes and at most the daemon's line
          limit in bytes each), pulls every change since the last sync and prints `pushed N, pulled M,
          conflicts K` (or `up to date`); pulled counts other clients' changes, not your own coming back.
          On a terminal it tells on standard error what it is doing (connecting, retries, push and pull
          progress with rate and ETA); elsewhere nothing. Safe to interrupt and to run again.
          Exit 0: in sync, no open conflict; 3: conflicts remain (see `expense conflicts`); 64: no address
          serves this cache's ledger (other_ledger, nothing changed); 65: a change was rejected, by the daemon
          or here as `too_large` (it does not fit in the daemon's line, expensed --max-line), and is kept while the rest syncs (see `expense status`); 69: the daemon is unreachable,
          or is slowing down logins from this address after failed attempts (`throttled`: try again in N s),
          or accepted but did not answer hello within EXPENSE_CONNECT_TIMEOUT (nothing is lost);
          75: another `expense sync` (or `sync --watch`) is syncing this cache (sync_running; your changes
          are kept, it sends them), or the daemon's disk is full (storage_full; your changes are kept: sync again
          once it has space); 76: a protocol failure (the daemon refused a request; `expense status` names the
          changes a failed push carried); 77: wrong ledger or token, or a TLS check failed (unknown_ca, host_mismatch,
          certificate_expired, pin_mismatch, plaintext_server, tls_server). Other commands may run during a sync.
        """,
        options: [ExpenseOptions.json.help(
            "Print the result as one JSON line: pushed, pulled, newConflicts, openConflicts, newRejections, openRejections, "
            + "pending, cursor (new…: this sync; open…: after it; docs/usage.md, \"Sync\"); with --watch, one line per round that "
            + "pushed, pulled or found a conflict.").spec,
                  ExpenseOptions.watch.spec])

    static let status = CommandSpec(
        name: "status", abstract: "Show the remote, the last sync (or why it failed), pending changes and open conflicts.",
        discussion: """
          Also the token's role as the last sync's `hello` reported it (owner, editor or viewer; JSON `role` and
          `tokenName`, null before the first sync). A viewer's cache refuses add, edit, delete, import and
          resolve --mine|--edit with exit 77 (`forbidden`), before anything is queued.
        """,
        options: [ExpenseOptions.json.spec])

    static let conflicts = CommandSpec(
        name: "conflicts", abstract: "List open conflicts, mine and theirs field by field.",
        discussion: """
          Expense conflicts first, then those on budgets, recurring rules and settings (the kind is named; in
          JSON their objects have a `record` key and their fields as on the wire).
        """,
        options: [ExpenseOptions.json.spec])

    static let resolve = CommandSpec(
        name: "resolve", abstract: "Settle a conflict; the next sync sends the result.",
        discussion: """
          A conflict on a budget, recurring rule or setting is settled with --mine (my fields again on top of
          the daemon's version) or --theirs (the daemon's, which is shown meanwhile); not with --edit.
        """,
        arguments: [ExpenseArguments.id.help("The expense's (or budget's, rule's, setting's) id or a unique prefix of at least 4 characters.").spec],
        options: [ExpenseOptions.mine.spec,
                  ExpenseOptions.theirs.spec,
                  ExpenseOptions.edit.spec]
            + ExpenseFieldOptions.resolveSpecs,
        exclusiveGroups: [.exactlyOne(ExpenseOptions.mine.spec, ExpenseOptions.theirs.spec, ExpenseOptions.edit.spec)])

    static let completion = CompletionScript.command(program: "expense")

    static let manual = ManualPage.command(program: "expense", section: 1)

    /// The man page `expense man` prints (docs/man/expense.1 is this page, kept in sync by a test).
    static let manualPage = ManualPage(section: 1, date: "2026-12-01", source: "expense \(version)", footer: footer,
                                       seeAlso: ["expensed(8)"])

    static let discard = CommandSpec(
        name: "discard", abstract: "Drop local changes that are not synced yet; the server's copy is untouched.",
        discussion: """
          Drops the queued (unsent or rejected) changes of each expense, and my side of its open conflict, and
          prints each id; the local view returns to the server's copy (an expense the daemon never had is gone).
          All or nothing: an id that matches no pending change (exit 1) leaves every expense as it was.
          A change already sent whose answer is not in yet cannot be discarded: run `expense sync` first.
        """,
        arguments: [ExpenseArguments.id.asVariadic().spec],
        options: [ExpenseOptions.rejected.spec])

    /// Exit codes and environment, appended to every help text.
    static let footer = """
        EXIT CODES:
        \(ExitCode.documentation)

        ENVIRONMENT:
          EXPENSE_HOME    the directory of the local cache (default: ~/.expense)
          EXPENSE_SERVER  the daemon's tls://HOST:PORT or HOST:PORT, or a list HOST1:PORT1,HOST2:PORT2 of the
                          same ledger (overrides `expense remote set`)
          EXPENSE_LEDGER  the ledger's name on the daemon
          EXPENSE_TOKEN   the ledger's token
          EXPENSE_TLS_CA, EXPENSE_TLS_PIN  override `remote set`'s --ca FILE and --pin sha256:HEX
          EXPENSE_CHART   `always` draws summary charts even when standard output is not a terminal
                          (default `auto`: only in a terminal)
          EXPENSE_STORE   `sqlite` (default: cache.sqlite) or `json` (cache.json, the whole-file store)
          EXPENSE_SYNC_ATTEMPTS  connection attempts before `sync` gives up with exit 69 (1-100, default 4)
          EXPENSE_CONNECT_TIMEOUT  seconds one attempt waits to connect and get hello's answer (0.1-600,
                          default 10); a server that accepts but does not answer is given up on (exit 69)
          EXPENSE_WATCH_PING     seconds of quiet before `sync --watch` pings the daemon (default 15)
          EXPENSE_VERBOSE  1, true, yes or on: `sync` prints its steps and timings on standard error
                           (0, false, no, off or empty: off, the default)
          LC_ALL, LC_MONETARY, LANG  the locale tables and summaries write money in (C, POSIX: plain)
        """
}

/// A record kind's command group: its spec, and what runs each of its subcommands. The root lists each group
/// once (``ExpenseCommands/kindGroups``) and ``ExpenseRunner`` runs a group's subcommands from ``runs``, so a
/// kind's commands live in its own two files (`ExpenseCommands+<Kind>.swift`, `ExpenseRunner+<Kind>.swift`).
struct KindCommands: Sendable {
    let spec: CommandSpec
    /// Each subcommand's name and what runs it.
    let runs: [String: @Sendable (ExpenseRunner) throws -> Void]
}
