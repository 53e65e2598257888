import ProcessSpawn
import Foundation
import Glibc

// expense-bench: the benchmark harness. docs/performance.md gives the method, the figures and their targets.

if CommandLine.arguments.dropFirst().first == "--ping-client" {
    signal(SIGPIPE, SIG_IGN)
    exit(PingClient.run(Array(CommandLine.arguments.dropFirst(2))))
}

let options: BenchOptions
do {
    options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    if case .other("help") = error {
        print(BenchOptions.usage)
        exit(0)
    }
    FileHandle.standardError.write(Data("Error: \(error)\nUsage: expense-bench [--quick] [--json] [--check] [--peers] [--runs N]\nSee 'expense-bench --help' for more information.\n".utf8))
    exit(64)
}

// 5,000 idle connections need more descriptors than the usual soft limit of 1024.
var limit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < limit.rlim_max {
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
signal(SIGPIPE, SIG_IGN)

// The pong server needs no workspace: making one here left an empty /tmp/expense-bench.* behind each ping figure.
if options.pongServer { exit(PongServer.run()) }

let workspace: Workspace
do {
    workspace = try Workspace()
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}

BenchCleanup.installSignalHandlers()
_ = BenchCleanup.add { workspace.removeAll() }

if let directory = options.seedDirectory {
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try LargeLedgerScenario.seedOnly(options: options, workspace: workspace, directory: directory)
        workspace.removeAll()
        print("seeded \(options.ledgerSize) expenses into \(directory)")
        exit(0)
    } catch {
        workspace.removeAll()
        FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
        exit(1)
    }
}

let thresholds: Thresholds
do {
    thresholds = try Thresholds(contentsOf: options.thresholdsPath)
    let unknown = thresholds.unknownKeys(figures: Figure.all)
    if !unknown.isEmpty { throw Thresholds.Invalid(key: unknown.joined(separator: ", "), reason: "no figure has this key") }
} catch {
    workspace.removeAll()
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}

var report = BenchReport(thresholds: thresholds)
let began = MonotonicClock.now()
progress("workspace \(workspace.path); runs \(options.runs)\(options.quick ? " (quick)" : "")")

for binary in [options.expensed, options.expense] where !FileManager.default.isExecutableFile(atPath: binary) {
    progress("warning: \(binary) is not an executable file")
}

if options.includes("idle") || BenchOptions.throughputFigures.contains(where: options.includesThroughputFigure) {
    ThroughputScenario(options: options, workspace: workspace).run(into: &report)
}
if options.includes("storage") { StorageScenario(options: options, workspace: workspace).run(into: &report) }
if options.includes("tls") { TLSScenario(options: options, workspace: workspace).run(into: &report) }
if let ledgers = options.hostedLedgers {
    for (section, store) in [("hosted", HostedScenario.Store.directory), ("hosted-pg", .postgres)] where options.includes(section) {
        HostedScenario(options: options, workspace: workspace, ledgers: ledgers, store: store).run(into: &report)
    }
}
let peerServers = PeerServers(stateDirectory: PeerServers.defaultStateDirectory)
_ = BenchCleanup.add { peerServers.stopStarted() }
let peers = PeerScenario(options: options, workspace: workspace, servers: peerServers)
var peerProblem: String?
if options.includes("redis") {
    peerProblem = peers.setUp()
    if let peerProblem {
        report.markMissing(["redis_ping_rps", "redis_ping_pipelined_rps", "redis_aof_set_rps"] + PeerScenario.pushWorkKeys
                           + RedisTLSPeer.keys, peerProblem)
    }
}
if peerProblem == nil && options.includes("redis") {
    peers.runRedis(into: &report)
    RedisTLSPeer(options: options, workspace: workspace).run(into: &report)
}
if options.includes("ledger") { LargeLedgerScenario(options: options, workspace: workspace).run(into: &report) }
if options.includes("add") { AddScenario(options: options, workspace: workspace).run(into: &report) }
if options.includes("history") { HistoryDiskScenario(options: options, workspace: workspace).run(into: &report) }
if options.includes("pg") { PostgresStoreScenario(options: options, workspace: workspace).run(into: &report) }

// Stops the peer servers this run started (and removes the workspace); signals take the same path.
BenchCleanup.runAll()

var uname = utsname()
Glibc.uname(&uname)
let machine = withUnsafeBytes(of: uname.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
report.context = [
    ("mode", options.quick ? "quick (ledger \(options.ledgerSize), cache \(options.cacheSize), 1 s windows)"
                           : "full (ledger \(options.ledgerSize), cache \(options.cacheSize), \(Int(options.windowSeconds)) s windows)"),
    ("runs", "\(options.runs) (median)"),
    ("machine", "\(ProcessInfo.processInfo.activeProcessorCount) CPUs, "
        + "\(ProcessInfo.processInfo.physicalMemory / 1_048_576) MiB, Linux \(machine)"),
    ("wall", "\(BenchReport.format(MonotonicClock.now() - began, 1)) s"),
]
let shown = Figure.all.filter { !$0.isShownOnlyWhenRun || report.entries[$0.key] != nil }
if options.json {
    FileHandle.standardError.write(Data(report.table(figures: shown).utf8))
    print(report.json(figures: Figure.all))
} else {
    print(report.table(figures: shown), terminator: "")
}
if options.check {
    let failures = report.failures(figures: Figure.all)
    for failure in failures { FileHandle.standardError.write(Data("check: \(failure)\n".utf8)) }
    exit(failures.isEmpty ? 0 : 1)
}
