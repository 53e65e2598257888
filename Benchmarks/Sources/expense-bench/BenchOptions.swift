import Foundation

/// The command line of `expense-bench`, and the sizes it implies.
struct BenchOptions {
    var quick = false
    var json = false
    /// `--check`: exit 1 when a measured figure misses its target (``Thresholds``).
    var check = false
    /// `--thresholds FILE`: the targets (default: Benchmarks/thresholds.json of this checkout).
    var thresholdsPath = Thresholds.defaultPath
    var peers = false
    /// `--pong-server`: run only the trivial server of the headroom figures (the generator's rate when the server
    /// costs almost nothing).
    var pongServer = false
    var runs = 3
    var expensed: String
    var expense: String
    var peersDirectory: String
    /// Sections to run (all by default): throughput, idle, storage, ledger, add, history, tls, redis, pg, hosted, hosted-pg; or single throughput
    /// figures: ping, push, single.
    var only: Set<String>?
    /// `--seed DIR`: only seed a ledger into the data directory DIR (kept), for profiling the client by hand.
    var seedDirectory: String?
    /// `--ledger-size N`: overrides the size of the large ledger.
    var ledgerSizeOverride: Int?
    /// `--ledgers N`: run the hosted scenario on N ledgers (``HostedScenario``).
    var hostedLedgers: Int?

    static let sections: Set<String> = ["throughput", "idle", "storage", "ledger", "add", "history", "tls", "redis", "pg", "hosted", "hosted-pg"]
    /// Parts of the throughput section that `--only` may name alone (for profiling one figure).
    static let throughputFigures: Set<String> = ["ping", "push", "single"]

    static let usage = """
        OVERVIEW: Benchmarks expensed and the expense client (docs/performance.md) and prints one table.

        USAGE: expense-bench [--quick] [--json] [--check] [--thresholds FILE] [--peers] [--runs N] [--expensed PATH] [--expense PATH]
                             [--peers-dir DIR] [--only SECTION,...] [--ledger-size N] [--ledgers N]
               expense-bench --seed DIR [--ledger-size N] [--expensed PATH]
               expense-bench --ping-client PORT TOKEN PINGS [CONNECTIONS] [sha256:HEX]

        OPTIONS:
          --quick           Smaller sizes (50k-expense ledger, 10k cache), one run, 1 s windows.
          --json            Print one JSON object on stdout (the table goes to stderr).
          --check           Exit 1 when a measured figure misses its target, naming each (after the table).
          --thresholds FILE The targets (default: Benchmarks/thresholds.json beside this package).
          --peers           Start Redis with DIR/setup-peers.sh and measure it too; also run the pg section.
          --runs N          Runs per figure; the median is reported (default 3; 1 with --quick).
          --expensed PATH   The daemon binary (default: next to this executable).
          --expense PATH    The client binary (default: next to this executable).
          --peers-dir DIR   The peer kit (default: ../shared/peers).
          --only LIST       Comma-separated sections: throughput, idle, storage, ledger, add, history, tls, redis, pg,
                            hosted and hosted-pg (both with --ledgers N); or one
                            throughput figure alone: ping (figure 1), push (2), single (3). tls with
                            ledger adds the first sync over TLS; tls with idle the 5,000 idle TLS connections.
                            pg: the push figures on `expensed serve --postgres`, PostgreSQL's own
                            multi-row insert and PostgreSQL doing a push's work, on a durable cluster
                            this run starts and removes. storage: the raw-SQLite ceiling of the push
                            figure (our rows from C) and the disk's fdatasync rate (after throughput,
                            whose group sizes it uses).
          --ledger-size N   Expenses in the large ledger (default 1,000,000; 50,000 with --quick).
          --ledgers N       Also measure one daemon hosting N ledgers: N made with `expensed ledger add`, the
                            daemon's start, two rounds of a hello and a push to each (not run without it).
                            hosted-pg (with --peers or --only): the same on a throwaway PostgreSQL cluster of
                            max_connections=100 served by two daemons, with the backends each holds.
          --pong-server     Only serve the trivial pong server of the headroom figures and print its port.
          --ping-client ... Only run the generator's unpipelined pings against a running expensed on
                            127.0.0.1:PORT (over TLS with a pinned fingerprint), to profile the generator.
          --seed DIR        Only seed a ledger of --ledger-size expenses into the data directory DIR and
                            stop the daemon, keeping DIR (serve it with `expensed serve --data DIR`).
          -h, --help        Show this help.

        Progress goes to stderr. A figure that cannot be measured is reported as n/a (JSON null) with its reason.
        """

    /// Parses `arguments` (without the program name).
    /// - Throws: a usage message.
    init(arguments: [String]) throws(BenchError) {
        let here = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        expensed = here + "/expensed"
        expense = here + "/expense"
        peersDirectory = "../shared/peers"
        var explicitRuns = false
        var iterator = arguments.makeIterator()
        func value(for option: String) throws(BenchError) -> String {
            guard let next = iterator.next() else { throw .other("\(option) needs a value") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "--quick": quick = true
            case "--json": json = true
            case "--check": check = true
            case "--thresholds": thresholdsPath = try value(for: argument)
            case "--peers": peers = true
            case "--pong-server": pongServer = true
            case "--runs":
                let text = try value(for: argument)
                guard let number = Int(text), number >= 1 else { throw .other("--runs needs a positive integer") }
                runs = number
                explicitRuns = true
            case "--expensed": expensed = try value(for: argument)
            case "--expense": expense = try value(for: argument)
            case "--peers-dir": peersDirectory = try value(for: argument)
            case "--seed": seedDirectory = try value(for: argument)
            case "--ledger-size":
                guard let number = Int(try value(for: argument)), number >= 1 else {
                    throw .other("--ledger-size needs a positive integer")
                }
                ledgerSizeOverride = number
            case "--ledgers":
                guard let number = Int(try value(for: argument)), number >= 1 else { throw .other("--ledgers needs a positive integer") }
                hostedLedgers = number
            case "--only":
                let list = Set(try value(for: argument).split(separator: ",").map(String.init))
                let unknown = list.subtracting(Self.sections).subtracting(Self.throughputFigures)
                guard unknown.isEmpty else { throw .other("unknown section(s): \(unknown.sorted().joined(separator: ", "))") }
                only = list
            case "-h", "--help": throw .other("help")
            default: throw .other("unknown argument '\(argument)'")
            }
        }
        if quick && !explicitRuns { runs = 1 }
    }

    /// Whether `section` runs (peer sections need `--peers` unless named in `--only`).
    func includes(_ section: String) -> Bool {
        if let only { return only.contains(section) }
        if section == "redis" || section == "pg" || section == "hosted-pg" { return peers }
        return true
    }

    /// Whether the throughput figure `figure` (ping, push, single) runs.
    func includesThroughputFigure(_ figure: String) -> Bool {
        guard let only else { return true }
        return only.contains("throughput") || only.contains(figure)
    }

    /// Seconds measured per load run, after the warm-up.
    var windowSeconds: Double { quick ? 1 : 3 }
    var warmupSeconds: Double { quick ? 0.3 : 0.5 }
    /// Expenses in the large ledger (figures named `_1m`).
    var ledgerSize: Int { ledgerSizeOverride ?? (quick ? 50_000 : 1_000_000) }
    /// Expenses in the client cache for `add`.
    var cacheSize: Int { quick ? 10_000 : 100_000 }
    var idleConnections: Int { 5_000 }
    var idlePings: Int { quick ? 2_000 : 10_000 }
    var summaryRepetitions: Int { quick ? 50 : 200 }
    var addRepetitions: Int { quick ? 3 : 7 }
}
