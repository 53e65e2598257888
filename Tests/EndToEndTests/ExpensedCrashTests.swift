import ExpenseProtocol
import ExpenseTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `expensed` binary as a process on a data directory of its own, listening on port 0.
final class ExpensedDaemon: Sendable {
    let data: String
    let process: Process
    let address: SocketAddress
    let stderrPath: String

    /// The built `expensed`, found like ``ExpenseProcess/executable``.
    static let executable: String = {
        let expense = URL(fileURLWithPath: ExpenseProcess.executable)
        return expense.deletingLastPathComponent().appendingPathComponent("expensed").path
    }()

    /// Starts `expensed serve --data data --listen listen extra…` and waits for its `listening on` line.
    init(data: String, listen: String = "127.0.0.1:0", extra: [String] = []) throws {
        self.data = data
        stderrPath = data + ".stderr-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve", "--data", data, "--listen", listen] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // The first stdout line, read byte by byte (blocking: callers run on a thread of their own).
        var line: [UInt8] = []
        let reader = output.fileHandleForReading
        while true {
            guard let byte = try reader.read(upToCount: 1), let first = byte.first else { break }
            if first == 0x0A { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on ") else {
            process.terminate()
            throw DaemonFailure(message: "expensed did not start: '\(text)'")
        }
        address = try SocketAddress(parsing: String(text.dropFirst("listening on ".count)))
    }

    struct DaemonFailure: Error { var message: String }

    /// The token of `default`.
    var token: String {
        get throws {
            try String(contentsOfFile: data + "/default.token", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// What the daemon wrote to standard error so far.
    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits; returns the exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: stderrPath)
        return process.terminationStatus
    }
}

/// Runs blocking code on a thread of its own, never on the cooperative pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// A blocking JSON-RPC client for the end-to-end tests.
final class WireClient {
    let connection: LineConnection
    private var nextId: Int64 = 0

    init(_ address: SocketAddress) throws { connection = try LineConnection(connectingTo: address) }

    func call(_ method: String, _ params: String) throws -> Result<JSONValue, RPCError> {
        nextId += 1
        let id = nextId
        try connection.writeLine(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
        while true {
            guard let line = try connection.readLine(timeout: .seconds(30)) else { throw TransportError.connectionClosed }
            if case .response(let answered, let outcome) = try RPCClientCodec.parse(line), answered == RequestID(id) {
                return outcome
            }
        }
    }

    func result(_ method: String, _ params: String) throws -> JSONValue {
        switch try call(method, params) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }

    func hello(token: String, clientId: UUID, ledger: String = "default") throws -> HelloResult {
        try HelloResult(json: result("hello", #"{"protocol":1,"ledger":"\#(ledger)","token":"\#(token)","clientId":"\#(clientId.uuidString)","clientName":"e2e"}"#))
    }
}

/// Smoke version of `Scripts/crash-test`: pushes in flight when the daemon is SIGKILLed, restart, resend.
@Suite(.serialized) struct ExpensedCrashTests {
    struct Expected { var version: Int64; var amount: Int64 }

    @Test func killNineWithPushesInFlightLosesNothingAcknowledged() async throws {
        let directory = NSTemporaryDirectory() + "expensed-crash-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
                        #expect(mutation.status == .duplicate, "mutation \(mutation.mutationId) committed before the kill")
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

            for _ in 0..<4 {
                let client = try WireClient(daemon.address)
                _ = try client.hello(token: token, clientId: clientId)
                for _ in 0..<5 {
                    let push = makePush()
                    settle(try PushResult(json: client.result("push", push.text)), push.predicted, committedUpTo: 0)
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
                let check = Process()
                check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
                check.arguments = [data + "/default.sqlite", "PRAGMA integrity_check;"]
                let pipe = Pipe()
                check.standardOutput = pipe
                try check.run()
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                check.waitUntilExit()
                #expect(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            }
        }
    }
}
