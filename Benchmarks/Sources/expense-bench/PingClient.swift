import ExpenseTransport
import Foundation

/// `expense-bench --ping-client PORT TOKEN PINGS [CONNECTIONS] [sha256:HEX]`: the load generator alone, for
/// counting its own instructions per `ping` under callgrind.
///
/// CONNECTIONS connections (default 2) to a running `expensed` on 127.0.0.1:PORT say `hello` with TOKEN, then
/// each sends PINGS unpipelined pings through ``LoadGenerator`` (the bench's own epoll loop and, with a pinned
/// fingerprint, its TLS client), and it exits. Run for two values of PINGS under callgrind, the difference of the
/// totals over the extra pings is the generator's cost per ping, its start-up and handshakes cancelled out.
enum PingClient {
    static let usage = "expense-bench --ping-client PORT TOKEN PINGS [CONNECTIONS] [sha256:HEX]"

    /// Runs the pings; the exit status (0, or 1 with a message on stderr).
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 3, let port = UInt16(arguments[0]), let pings = Int(arguments[2]), pings > 0 else {
            progress("usage: \(usage)")
            return 64
        }
        let token = arguments[1]
        let connections = arguments.count > 3 ? Int(arguments[3]) ?? 2 : 2
        var context: TLSContext?
        if arguments.count > 4 {
            guard let fingerprint = CertificateFingerprint(parsing: arguments[4]) else {
                progress("not a fingerprint: \(arguments[4])")
                return 64
            }
            do {
                context = try TLSContext.client(.pin(fingerprint))
            } catch {
                progress("TLS client context: \(error)")
                return 1
            }
        }
        let plan = LoadPlan(port: port, connections: connections, tls: context,
                            handshake: { connection, _ throws(BenchError) in try RPCSession.hello(connection, token: token) },
                            source: { _, _ in CountedRoundSource(FixedRoundSource(request: ThroughputScenario.pingLine, depth: 1),
                                                                 rounds: pings) },
                            expect: ThroughputScenario.resultToken, stop: .exhausted)
        do {
            let result = try LoadGenerator.run(plan)
            progress("ping client: \(result.operations) pings")
            return 0
        } catch {
            progress("ping client: \(error)")
            return 1
        }
    }
}

/// The first `rounds` rounds of another source, then none.
struct CountedRoundSource<Source: RoundSource>: RoundSource {
    private var source: Source
    private var remaining: Int

    init(_ source: Source, rounds: Int) {
        self.source = source
        remaining = rounds
    }

    mutating func next() -> Round? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return source.next()
    }
}
