import ExpenseCore
import Foundation

/// The few JSON-RPC exchanges the bench makes outside the load generator (`hello`, `summary`), over raw bytes.
enum RPCSession {
    /// The `hello` request line for `clientId`, as Protocol.md §5.1 specifies it.
    static func helloLine(token: String, clientId: String, ledger: String = "default") -> [UInt8] {
        let params: [String: Any] = ["protocol": 1, "ledger": ledger, "token": token,
                                     "clientId": clientId, "clientName": "bench"]
        let object: [String: Any] = ["jsonrpc": "2.0", "id": 0, "method": "hello", "params": params]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Says `hello` with a fresh clientId on `connection`.
    /// - Returns: the `lastMutationId` the daemon holds for that clientId (0 for a new one).
    /// - Throws: ``BenchError/unexpectedResponse(_:)`` for an error answer.
    static func hello(_ connection: TCPConnection, token: String, ledger: String = "default") throws(BenchError) -> Int {
        try connection.send(helloLine(token: token, clientId: UUIDText.lowercased(UUID()), ledger: ledger))
        let result = try resultObject(try connection.readLine())
        guard let last = result["lastMutationId"] as? Int else {
            throw .unexpectedResponse("hello result without lastMutationId: \(result)")
        }
        return last
    }

    /// Sends one request line and returns the `result` object of its answer.
    static func call(_ connection: TCPConnection, _ line: String) throws(BenchError) -> [String: Any] {
        try connection.send(Array((line + "\n").utf8))
        return try resultObject(try connection.readLine())
    }

    /// Decodes a response line and returns its `result` object.
    /// - Throws: ``BenchError/unexpectedResponse(_:)`` when the line is an error or not a response.
    static func resultObject(_ line: [UInt8]) throws(BenchError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else {
            throw .unexpectedResponse("not a JSON object: \(BenchError.excerpt(line))")
        }
        guard let result = object["result"] as? [String: Any] else {
            throw .unexpectedResponse(BenchError.excerpt(line))
        }
        return result
    }
}
