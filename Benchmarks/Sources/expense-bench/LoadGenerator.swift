import ExpenseTransport
import Foundation
import Glibc
import ProcessSpawn
import Synchronization

/// What one load run does: how many connections, how each is opened, what each sends, when it stops.
///
/// The same generator drives expensed, Redis and the bench's own pong server, so a ratio between them compares
/// servers, not clients: connections are spread over one epoll loop per core (``LoadLoop``), each connection has one
/// round in flight, and a round = send the round's bytes, then read until the expected number of `\n` arrived.
struct LoadPlan: Sendable {
    /// How a run ends.
    enum Stop: Sendable {
        /// Run for `warmup + duration` seconds; count only rounds that complete inside the last `duration`.
        case window(warmup: Double, duration: Double)
        /// Each connection runs until its source returns `nil`; everything counts.
        case exhausted
    }

    /// What each connection does.
    enum Work: Sendable {
        /// Rounds from the connection's ``LoadPlan/source``.
        case rounds
        /// Over and over: connect, run a full TLS handshake with `tls`, close. An operation is one handshake.
        case handshakes
    }

    var host = "127.0.0.1"
    var port: UInt16
    var connections: Int
    /// TLS for every connection (ExpenseTransport's client session), or plaintext when `nil`.
    var tls: TLSContext?
    var work = Work.rounds
    /// Runs (blocking) before the clock starts (e.g. `hello`); its value goes to `source`.
    var handshake: @Sendable (_ connection: TCPConnection, _ index: Int) throws(BenchError) -> Int = { _, _ in 0 }
    /// Makes the round source of connection `index`, given the handshake's value.
    var source: @Sendable (_ index: Int, _ handshakeValue: Int) -> any RoundSource = { _, _ in NoRounds() }
    /// Bytes that must occur ``Round/expectedMatches`` times in every answer (`"result"`, `+PONG`, `"applied"`).
    var expect: [UInt8] = []
    var stop: Stop
    /// Epoll loops (threads); `nil`: one per core, never more than connections.
    var loops: Int?
}

/// The outcome of one load run.
struct LoadResult {
    /// Operations (requests, mutations or handshakes) completed per second inside the measured window.
    var operationsPerSecond: Double
    /// Latency of each measured round, in milliseconds, sorted.
    var roundLatenciesMilliseconds: [Double]
    /// Operations counted.
    var operations: Int
    /// Seconds measured.
    var seconds: Double
    /// CPU the generator's loop threads used per second of the run (``SchedStat``, in cores: 1.0 = one core busy).
    var generatorCores: Double

    func latencyPercentile(_ p: Double) -> Double? {
        Statistics.percentileOfSorted(roundLatenciesMilliseconds, p)
    }
}

/// Runs a ``LoadPlan`` on one epoll loop per core.
enum LoadGenerator {
    /// Runs `plan` to completion.
    /// - Throws: the first connection's error (connect, handshake, or a wrong answer) as ``BenchError``.
    static func run(_ plan: LoadPlan) throws(BenchError) -> LoadResult {
        let loopCount = max(1, min(plan.loops ?? defaultLoops, plan.connections))
        var slots: [[LoopSlot]] = Array(repeating: [], count: loopCount)
        if plan.work == .rounds {
            // Connections are opened and set up (TLS handshake, `hello`) before the clock starts.
            for index in 0..<plan.connections {
                let connection: TCPConnection
                let value: Int
                do {
                    connection = try TCPConnection(host: plan.host, port: plan.port, tls: plan.tls)
                    value = try plan.handshake(connection, index)
                } catch {
                    throw .other("connection \(index): \(error)")
                }
                let (descriptor, session) = connection.detachForLoop()
                slots[index % loopCount].append(LoopSlot(index: index, descriptor: descriptor, tls: session,
                                                         source: plan.source(index, value)))
            }
        } else {
            for index in 0..<plan.connections {
                slots[index % loopCount].append(LoopSlot(index: index, descriptor: -1, tls: nil, source: NoRounds()))
            }
        }

        let start = MonotonicClock.now()
        let window: (from: Double, until: Double) // not money: seconds
        switch plan.stop {
        case .window(let warmup, let duration): window = (start + warmup, start + warmup + duration)
        case .exhausted: window = (start, .infinity)
        }
        let abort = AbortFlag()
        let reports = Mutex<[LoopReport]>([])
        let finished = DispatchGroup()
        for loopSlots in slots {
            finished.enter()
            let loop = LoadLoop(plan: plan, slots: loopSlots, measureFrom: window.from, measureUntil: window.until)
            let thread = Thread {
                let cpuBefore = SchedStat.currentThread()
                var report = loop.run(abort: abort)
                if let cpuBefore, let cpuAfter = SchedStat.currentThread() { report.cpuNanoseconds = cpuAfter &- cpuBefore }
                reports.withLock { $0.append(report) }
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        finished.wait()
        let end = MonotonicClock.now()
        let cpu = Double(reports.withLock { $0.reduce(0) { $0 &+ $1.cpuNanoseconds } }) / 1e9

        let all = reports.withLock { $0 }
        if let failure = all.compactMap(\.error).first { throw .other(failure) }
        let operations = all.reduce(0) { $0 + $1.operations }
        let seconds: Double
        switch plan.stop {
        case .window(_, let duration): seconds = duration
        case .exhausted: seconds = end - start
        }
        var latencies: [Double] = [] // not money: a measurement
        latencies.reserveCapacity(all.reduce(0) { $0 + $1.latencyNanoseconds.count })
        for report in all { latencies += report.latencyNanoseconds.lazy.map { Double($0) / 1_000_000 } }
        latencies.sort()
        return LoadResult(operationsPerSecond: seconds > 0 ? Double(operations) / seconds : 0,
                          roundLatenciesMilliseconds: latencies, operations: operations, seconds: seconds,
                          generatorCores: end > start ? cpu / (end - start) : 0)
    }

    /// One loop per core; `EXPENSE_BENCH_LOOPS=N` overrides it (to see how a figure depends on the client's threads).
    static var defaultLoops: Int {
        ProcessInfo.processInfo.environment["EXPENSE_BENCH_LOOPS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            ?? ProcessInfo.processInfo.activeProcessorCount
    }
}
