import Foundation
import TestSupport
import Testing

/// The load generator's own loop (`expense-bench --ping-client`, Benchmarks/Sources/expense-bench/LoadLoop.swift) against the
/// real daemon: every answer is checked (one `"result"` per ping) and the count is exact, so a change to the
/// generator's per-round work, trimmed because its CPU is taken from the measured server, cannot drop or miscount
/// requests.
@Suite(.serialized, .enabled(if: BenchExecutable.enabled, BenchExecutable.skipReason)) struct BenchPingClientTests {

    @Test func thePingClientSendsEveryPingAndChecksEveryAnswer() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            defer { _ = daemon.stop() }
            let port = String(try daemon.addressText().split(separator: ":").last ?? "")
            let token = try String(contentsOfFile: data + "/default.token", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try ExpenseProcess.run(try BenchExecutable.required(), ["--ping-client", port, token, "300", "3"],
                                                environment: ProcessInfo.processInfo.environment, scratch: scratch.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("ping client: 900 pings"), "\(result.stderr)")
        }
    }

    @Test func aWrongTokenFailsTheRunInsteadOfCountingErrorsAsAnswers() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            defer { _ = daemon.stop() }
            let port = String(try daemon.addressText().split(separator: ":").last ?? "")
            let result = try ExpenseProcess.run(try BenchExecutable.required(), ["--ping-client", port, "not-the-token", "10", "1"],
                                                environment: ProcessInfo.processInfo.environment, scratch: scratch.directory)
            #expect(result.status != 0, "\(result.stderr)")
        }
    }
}
