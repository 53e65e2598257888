import ExpenseCore
import Foundation
import Testing
@testable import ExpenseProtocol

/// sourcekit-lsp's `checkCoding`: the value writes exactly `json` (keys sorted), `json` is sorted-key JSON,
/// and reading `json` back gives the value. With `sorted` false `json` need not be in sorted-key form: a pull
/// page writes its cursor and `more` first.
func checkResult<Result: RPCResult & Equatable>(_ value: Result, json: String, sorted: Bool = true,
                                                sourceLocation: SourceLocation = #_sourceLocation) throws {
    let written = String(decoding: value.jsonBytes, as: UTF8.self)
    #expect(written == json, sourceLocation: sourceLocation)
    let parsed = try JSONParser.parse(Array(json.utf8))
    #expect(!sorted || parsed.jsonText == json, "expected JSON is not in sorted-key form", sourceLocation: sourceLocation)
    #expect(try Result(json: parsed) == value, sourceLocation: sourceLocation)
}

/// The same for request params: written by the client, read by the daemon.
func checkParams<Request: RPCMethodRequest & Equatable>(_ value: Request, json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let written = String(decoding: value.paramsBytes, as: UTF8.self)
    #expect(written == json, sourceLocation: sourceLocation)
    let parsed = try JSONParser.parse(Array(json.utf8))
    #expect(parsed.jsonText == json, "expected JSON is not in sorted-key form", sourceLocation: sourceLocation)
    #expect(try Request(params: parsed) == value, sourceLocation: sourceLocation)
}

/// Parses params text, returning the daemon's −32602/−32003 error if any.
func paramsError<Request: RPCMethodRequest>(_ type: Request.Type, _ json: String?) -> RPCError? {
    do {
        _ = try Request(params: json.map { try JSONParser.parse(Array($0.utf8)) })
        return nil
    } catch let error as RPCError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

enum Fixtures {
    static let idText = "6f9619ff-8b86-d011-b42d-00cf4fc964ff"
    static let id = UUID(uuidString: idText) ?? UUID()

    static func expense(amount: Int64 = 1250, note: String = "lunch") throws -> Expense {
        try ExpenseValidator.validate(ExpenseDraft(id: idText, amount: amount, currency: "USD", category: "food",
                                                   date: "2026-11-30", note: note))
    }

    static func record(deleted: Bool = false) throws -> Record {
        Record(expense: try expense(), version: 2, seq: 17, deleted: deleted)
    }

    static let recordJSON = #"{"amount":1250,"category":"food","currency":"USD","date":"2026-11-30","deleted":false,"id":"6f9619ff-8b86-d011-b42d-00cf4fc964ff","note":"lunch","seq":17,"version":2}"#
}
