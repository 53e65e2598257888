import ProcessSpawn
import Dispatch
import Foundation
import Synchronization

/// What one load run does: how many connections, how each is opened, what each sends, when it stops.
///
/// The same generator drives expensed and Redis, so a ratio between them compares servers, not clients:
/// one thread per connection, a blocking socket with `TCP_NODELAY`, a round = send the round's bytes,
/// then read until the expected number of `\n` arrived.
struct LoadPlan: Sendable {
    /// How a run ends.
    enum Stop: Sendable {
        /// Run for `warmup + duration` seconds; count only rounds that complete inside the last `duration`.
        case window(warmup: Double, duration: Double)
        /// Each connection runs until its source returns `nil`; everything counts.
        case exhausted
    }

    var host = "127.0.0.1"
    var port: UInt16
    var connections: Int
    /// Runs on the connection's thread before the clock starts (e.g. `hello`); its value goes to `source`.
    var handshake: @Sendable (_ connection: TCPConnection, _ index: Int) throws(BenchError) -> Int = { _, _ in 0 }
    /// Makes the round source of connection `index`, given the handshake's value.
    var source: @Sendable (_ index: Int, _ handshakeValue: Int) -> any RoundSource
    /// Bytes that must occur ``Round/expectedMatches`` times in every answer (`"result"`, `+PONG`, `"applied"`).
    var expect: [UInt8]
    var stop: Stop
}

/// The outcome of one load run.
struct LoadResult {
    /// Operations (requests or mutations) completed per second inside the measured window.
    var operationsPerSecond: Double
    /// Latency of each measured round, in milliseconds, sorted.
    var roundLatenciesMilliseconds: [Double]
    /// Operations counted.
    var operations: Int
    /// Seconds measured.
    var seconds: Double

    func latencyPercentile(_ p: Double) -> Double? {
        Statistics.percentileOfSorted(roundLatenciesMilliseconds, p)
    }
}

/// Runs a ``LoadPlan`` with one OS thread per connection.
enum LoadGenerator {
    private struct ThreadReport: Sendable {
        var operations = 0
        var latencies: [Double] = [] // not money: a measurement
        var error: String?
        var firstRoundStart = Double.infinity // not money: a measurement
        var lastRoundEnd = 0.0
    }

    /// Shared between the threads of one run; each field is behind a `Mutex`.
    private final class RunState: Sendable {
        let reports = Mutex<[ThreadReport]>([])
        /// (measure from, measure until), set by the coordinator before it opens the gate.
        let window = Mutex<(Double, Double)>((0, .infinity)) // not money: a measurement
        let ready = DispatchGroup()
        let finished = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
    }

    /// Runs `plan` to completion.
    /// - Throws: the first connection's error (connect, handshake, or a wrong answer) as ``BenchError``.
    static func run(_ plan: LoadPlan) throws(BenchError) -> LoadResult {
        let state = RunState()
        for index in 0..<plan.connections {
            state.ready.enter()
            state.finished.enter()
            let thread = Thread {
                let report = connectionLoop(plan: plan, index: index, state: state)
                state.reports.withLock { $0.append(report) }
                state.finished.leave()
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        state.ready.wait()
        let start = MonotonicClock.now()
        switch plan.stop {
        case .window(let warmup, let duration):
            state.window.withLock { $0 = (start + warmup, start + warmup + duration) }
        case .exhausted:
            state.window.withLock { $0 = (start, .infinity) }
        }
        for _ in 0..<plan.connections { state.gate.signal() }
        state.finished.wait()
        let end = MonotonicClock.now()

        let reports = state.reports.withLock { $0 }
        if let failure = reports.compactMap(\.error).first {
            throw .other(failure)
        }
        let operations = reports.reduce(0) { $0 + $1.operations }
        let seconds: Double
        switch plan.stop {
        case .window(_, let duration): seconds = duration
        case .exhausted: seconds = end - start
        }
        let latencies = reports.flatMap(\.latencies).sorted()
        return LoadResult(operationsPerSecond: seconds > 0 ? Double(operations) / seconds : 0,
                          roundLatenciesMilliseconds: latencies, operations: operations, seconds: seconds)
    }

    private static func connectionLoop(plan: LoadPlan, index: Int, state: RunState) -> ThreadReport {
        var report = ThreadReport()
        let connection: TCPConnection
        var source: any RoundSource
        do {
            connection = try TCPConnection(host: plan.host, port: plan.port)
            let value = try plan.handshake(connection, index)
            source = plan.source(index, value)
        } catch {
            report.error = "connection \(index): \(error)"
            state.ready.leave()
            state.gate.wait()
            return report
        }
        state.ready.leave()
        state.gate.wait()
        let (measureFrom, measureUntil) = state.window.withLock { $0 }

        var response: [UInt8] = []
        response.reserveCapacity(64 * 1024)
        while let round = source.next() {
            let began = MonotonicClock.now()
            do {
                try connection.send(round.bytes)
                try connection.receive(lines: round.lines, into: &response)
            } catch {
                report.error = "connection \(index): \(error)"
                break
            }
            let ended = MonotonicClock.now()
            let matches = TCPConnection.occurrences(of: plan.expect, in: response)
            guard matches == round.expectedMatches else {
                report.error = "connection \(index): expected \(round.expectedMatches) × "
                    + "\(String(decoding: plan.expect, as: UTF8.self)), found \(matches): \(BenchError.excerpt(response))"
                break
            }
            if ended > measureUntil { break }
            if ended >= measureFrom {
                report.operations += round.operations
                report.latencies.append((ended - began) * 1000)
            }
        }
        return report
    }
}
