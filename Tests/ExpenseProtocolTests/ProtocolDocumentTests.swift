import Foundation
import Testing
@testable import ExpenseProtocol

/// Keeps Protocol.md's worked session honest: every line of it parses as what it claims to be, and the
/// lines this module can produce byte for byte are the bytes it produces.
@Suite struct ProtocolDocumentTests {
    private static func transcript() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Protocol.md"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("> {") || $0.hasPrefix("< {") }
    }

    @Test func everyTranscriptLineParses() throws {
        let lines = try Self.transcript()
        #expect(lines.count > 20)
        for line in lines where !line.contains("…") {
            let body = Array(line.dropFirst(2).utf8)
            if line.hasPrefix(">") {
                switch RPCRequest.parse(body) {
                case .success(let request):
                    switch request.method {
                    case "hello": #expect(throws: Never.self) { try HelloRequest(params: request.params) }
                    case "push": #expect(throws: Never.self) { try PushRequest(params: request.params) }
                    case "summary": #expect(throws: Never.self) { try SummaryRequest(params: request.params) }
                    case "stats": #expect(throws: Never.self) { try StatsRequest(params: request.params) }
                    case "history" where !line.contains(#""limit":0"#):
                        #expect(throws: Never.self) { try HistoryRequest(params: request.params) }
                    case "balances" where !line.contains(#""currency":"eur""#):
                        #expect(throws: Never.self) { try BalancesRequest(params: request.params) }
                    default: break
                    }
                case .failure(let failure):
                    #expect(failure.error.reason == "duplicate_key", "unexpected failure for \(line)")
                }
            } else {
                let incoming = try RPCClientCodec.parse(body)
                // A response written by this module is byte-identical to the document.
                if case .response(let id, .success(let result)) = incoming, result["changes"] == nil, result["results"] == nil {
                    let rewritten = RPCResponse.success(id: id, result: result)
                    #expect(String(decoding: rewritten.dropLast(), as: UTF8.self) == String(line.dropFirst(2)))
                }
                if case .response(let id, .failure(let error)) = incoming {
                    #expect(String(decoding: RPCResponse.error(id: id, error).dropLast(), as: UTF8.self) == String(line.dropFirst(2)))
                }
                if case .response(_, .success(let result)) = incoming, result["tables"] != nil {
                    #expect(throws: Never.self) { try StatsResult(json: result) }
                }
                // A push answer read and written again is the document's line: each `record` an applied answer
                // carries is read (a record that cannot be, or not at the answer's version and seq, would be
                // left out) and written as the daemon writes it.
                if case .response(let id, .success(let result)) = incoming, result["results"] != nil {
                    let pushed = try PushResult(json: result)
                    #expect(String(decoding: RPCResponse.success(id: id, result: pushed).dropLast(), as: UTF8.self)
                        == String(line.dropFirst(2)))
                }
                // A `balances` answer read and written again is the document's line: the rows are what the daemon writes.
                if case .response(let id, .success(let result)) = incoming, result["balances"] != nil {
                    let balances = try BalancesResult(json: result)
                    #expect(String(decoding: RPCResponse.success(id: id, result: balances).dropLast(), as: UTF8.self)
                        == String(line.dropFirst(2)))
                }
                if case .response(_, .success(let result)) = incoming, result["entries"] != nil {
                    #expect(throws: Never.self) { try HistoryResult(json: result) }
                }
            }
        }
    }

    @Test func documentedErrorLinesAreWhatTheConstructorsWrite() throws {
        let lines = try Self.transcript()
        #expect(lines.contains("< " + String(decoding: RPCResponse.error(id: RequestID(1), .helloRequired).dropLast(), as: UTF8.self)))
        #expect(lines.contains("< " + String(decoding: RPCResponse.error(id: RequestID(8), .methodNotFound("frobnicate")).dropLast(), as: UTF8.self)))
        #expect(lines.contains("< " + String(decoding: RPCResponse.changed(cursor: 3).dropLast(), as: UTF8.self)))
        let duplicate = try #require({ if case .failure(let f) = RPCRequest.parse(Array(#"{"jsonrpc":"2.0","id":9,"method":"ping","id":10}"#.utf8)) { return f }; return nil }())
        #expect(lines.contains("< " + String(decoding: duplicate.responseLine.dropLast(), as: UTF8.self)))
    }
}
