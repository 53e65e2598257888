import ExpenseProtocol
import ExpenseTransport
import Testing
@testable import ExpenseServer
@Test func debugLine() async throws {
    try await withTestServer { server in
        let c = try LineConnection(connectingTo: server.address)
        try c.writeLine(RawClient.request(id: 1, method: "ping"))
        let line = try c.readLine()!
        print("LINE[\(String(decoding: line, as: UTF8.self))] \(line.prefix(10))")
        print(try JSONParser.parse(line))
    }
}
