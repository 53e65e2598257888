import TestSupport
import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Smoke version of `Scripts/crash-test`: pushes in flight when the daemon is SIGKILLed, restart, resend; one round
/// compacts the ledger beside the serving daemon before its kill.
@Suite(.serialized) struct ExpensedCrashTests {
    struct Expected { var version: Int64; var amount: Int64 }

    @Test func killNineWithPushesInFlightLosesNothingAcknowledged() async throws {
        let temporary = try TemporaryDirectory("expensed-crash"), directory = temporary.path
        defer { temporary.remove() }
        let data = directory + "/data"
        try await onOwnThread {
            var daemon = try ExpensedDaemon(data: data)
            let token = try daemon.token
            let clientId = UUID()
            var model: [UUID: Expected] = [:]
            var nextMutation: Int64 = 1
            var highestAcknowledged: Int64 = 0
            var acknowledged = 0
            var random = SystemRandomNumberGenerator()

            /// A push of 3 creates and an edit of an earlier record, with the state each leaves.
            func makePush() -> (text: String, predicted: [(UUID, Expected)]) {
                var mutations: [String] = []
                var predicted: [(UUID, Expected)] = []
                var state = model
                for _ in 0..<3 {
                    let id = UUID()
                    let amount = Int64.random(in: 1...100_000, using: &random)
                    mutations.append(#"{"mutationId":\#(nextMutation + Int64(mutations.count)),"type":"put","id":"\#(id)","baseVersion":0,"fields":{"amount":\#(amount),"category":"food","date":"2026-11-30"}}"#)
                    state[id] = Expected(version: 1, amount: amount)
                    predicted.append((id, Expected(version: 1, amount: amount)))
                }
                if let (id, current) = model.first {
                    let edited = Expected(version: current.version + 1, amount: current.amount + 1)
                    mutations.append(#"{"mutationId":\#(nextMutation + Int64(mutations.count)),"type":"put","id":"\#(id)","baseVersion":\#(current.version),"fields":{"amount":\#(edited.amount)}}"#)
                    predicted.append((id, edited))
                }
                return (#"{"mutations":[\#(mutations.joined(separator: ","))]}"#, predicted)
            }

            func settle(_ result: PushResult, _ predicted: [(UUID, Expected)], committedUpTo: Int64) {
                #expect(result.results.count == predicted.count)
                for (mutation, (id, expected)) in zip(result.results, predicted) {
                    if mutation.mutationId <= committedUpTo {
                        #expect(mutation.status.isDuplicate, "mutation \(mutation.mutationId) committed before the kill")
                    } else {
                        guard case .applied(let version, _) = mutation.status, version == expected.version else {
                            Issue.record("mutation \(mutation.mutationId): \(mutation.status), expected v\(expected.version)")
                            continue
                        }
                        acknowledged += 1
                        highestAcknowledged = mutation.mutationId
                    }
                    model[id] = expected
                }
                nextMutation += Int64(predicted.count)
            }

            for round in 0..<4 {
                let client = try WireClient(daemon.address)
                _ = try client.hello(token: token, clientId: clientId)
                for _ in 0..<5 {
                    let push = makePush()
                    settle(try PushResult(json: client.result("push", push.text)), push.predicted, committedUpTo: 0)
                }
                if round == 2 {
                    // A compaction beside the serving daemon (its history goes; live records never do), then the kill.
                    let compacted = try ExpenseProcess.run(ExpenseProcess.locate("expensed"),
                                                           ["compact", "--ledger", "default", "--keep-days", "0", "--data", data],
                                                           environment: [:], scratch: directory)
                    #expect(compacted.status == 0 && compacted.stdout.hasPrefix("horizon "), "\(compacted)")
                }
                // A push written, its answer never read: the kill lands before, during or after its commit.
                let inFlight = makePush()
                try client.connection.writeLine(#"{"jsonrpc":"2.0","id":99,"method":"push","params":\#(inFlight.text)}"#)
                daemon.kill9()
                daemon = try ExpensedDaemon(data: data)
                let again = try WireClient(daemon.address)
                let hello = try again.hello(token: token, clientId: clientId)
                let sent = nextMutation - 1 + Int64(inFlight.predicted.count)
                #expect(hello.lastMutationId >= highestAcknowledged, "an acknowledged mutation was lost")
                #expect(hello.lastMutationId <= sent, "a mutation never sent was consumed")
                settle(try PushResult(json: again.result("push", inFlight.text)), inFlight.predicted, committedUpTo: hello.lastMutationId)
            }

            let reader = try WireClient(daemon.address)
            _ = try reader.hello(token: token, clientId: UUID())
            let pulled = try PullResult(json: reader.result("pull", #"{"since":0,"limit":10000}"#))
            #expect(pulled.more == false)
            let records = Dictionary(uniqueKeysWithValues: pulled.changes.map { ($0.expense.id, $0) })
            #expect(Set(records.keys) == Set(model.keys), "records nobody acknowledged, or acknowledged ones missing")
            for (id, expected) in model {
                #expect(records[id]?.version == expected.version)
                #expect(records[id]?.expense.amount == expected.amount)
            }
            let summary = try SummaryResult(json: reader.result("summary", "{}"))
            #expect(summary.summary.totals.first?.amount == model.values.reduce(0) { $0 + $1.amount })
            #expect(summary.summary.totals.first?.count == Int64(model.count))
            #expect(acknowledged > 60)
            #expect(daemon.stop() == 0)
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
                let check = try ExpenseProcess.run("/usr/bin/sqlite3", [data + "/default.sqlite", "PRAGMA integrity_check;"],
                                                   environment: ProcessInfo.processInfo.environment, scratch: directory)
                #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check)")
            }
        }
    }
}
