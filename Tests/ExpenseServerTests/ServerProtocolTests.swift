import ExpenseProtocol
import ExpenseTransport
import Testing
@testable import ExpenseServer

@Suite struct ServerProtocolTests {
    @Test func helloThenPingPullSummaryPush() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.send(RawClient.hello(id: 7))
            let hello = try #require(try client.receiveResult())
            #expect(hello.id == RequestID(7))
            let result = try HelloResult(json: hello.result)
            #expect(result.ledger == "default")
            #expect(result.currency.code == "USD")
            #expect(result.server.hasPrefix("expensed "))
            try client.send(RawClient.request(id: 8, method: "ping"))
            #expect(try client.receiveResult()?.id == RequestID(8))
            try client.send(#"{"jsonrpc":"2.0","id":"p","method":"push","params":{"mutations":[{"mutationId":1,"type":"delete","id":"6f1c2a3e-1111-4222-8333-944455556666","baseVersion":1}]}}"#)
            let push = try #require(try client.receiveResult())
            #expect(push.id == .string("p"))
            #expect(try PushResult(json: push.result).cursor == 1)
            try client.send(RawClient.request(id: 9, method: "pull", params: #"{"since":0}"#))
            #expect(try client.receiveResult()?.id == RequestID(9))
            try client.send(#"{"jsonrpc":"2.0","id":10,"method":"summary"}"#)  // params omitted
            #expect(try client.receiveResult()?.id == RequestID(10))
        }
    }

    @Test func everyMethodBeforeHelloIsUnauthorizedAndTheConnectionStaysOpen() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            for (index, method) in ["ping", "push", "pull", "summary", "watch", "nonsense"].enumerated() {
                try client.send(RawClient.request(id: index, method: method))
                let answer = try #require(try client.receiveError())
                #expect(answer.id == RequestID(Int64(index)))
                #expect(answer.error.code == -32001)
                #expect(answer.error.reason == "unauthorized")
            }
            try client.greet()
        }
    }

    @Test func secondHelloIsInvalidRequest() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            try client.send(RawClient.hello(id: 2))
            let answer = try #require(try client.receiveError())
            #expect(answer.error.code == -32600)
            try client.send(RawClient.request(id: 3, method: "ping"))
            #expect(try client.receiveResult()?.id == RequestID(3))
        }
    }

    @Test(arguments: [("default", "wrong-token"), ("other", FakeLedgers.token)])
    func wrongLedgerOrTokenIsUnauthorizedThenClosed(ledger: String, token: String) async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.send(RawClient.hello(id: 1, token: token, ledger: ledger) + "\n" + RawClient.request(id: 2, method: "ping"))
            let answer = try #require(try client.receiveError())
            #expect(answer.id == RequestID(1))
            #expect(answer.error.code == -32001)
            #expect(try client.receive() == nil)
        }
    }

    @Test(arguments: ["2", "0", "\"1\""])
    func unsupportedProtocolIsAnsweredThenClosed(version: String) async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.send(RawClient.hello(protocolVersion: version))
            let answer = try #require(try client.receiveError())
            if version == "\"1\"" {
                #expect(answer.error.code == RPCError.invalidParamsCode)  // not an integer: invalid params, connection stays open
                try client.greet()
            } else {
                #expect(answer.error.code == -32003)
                #expect(try client.receive() == nil)
            }
        }
    }

    @Test(arguments: [
        ("{not json", RPCError.parseErrorCode, nil),
        ("[1,2]", RPCError.invalidRequestCode, nil),
        ("42", RPCError.invalidRequestCode, nil),
        (#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#, RPCError.invalidRequestCode, 5),
        (#"{"id":6,"method":"ping"}"#, RPCError.invalidRequestCode, 6),
        (#"{"jsonrpc":"2.0","id":7,"method":"frobnicate"}"#, RPCError.methodNotFoundCode, 7),
        (#"{"jsonrpc":"2.0","id":8,"method":"pull","params":{"limit":0}}"#, RPCError.invalidParamsCode, 8),
        (#"{"jsonrpc":"2.0","id":9,"method":"pull","params":{"since":99}}"#, RPCError.invalidParamsCode, 9),
        (#"{"jsonrpc":"2.0","id":10,"method":"push","params":{"mutations":"x"}}"#, RPCError.invalidParamsCode, 10),
    ] as [(String, Int, Int64?)])
    func badRequestsKeepTheConnectionOpen(line: String, code: Int, id: Int64?) async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            try client.send(line)
            let answer = try #require(try client.receiveError())
            #expect(answer.error.code == code)
            #expect(answer.id == id.map { RequestID($0) })
            #expect(!answer.error.reason.isEmpty)
            try client.send(RawClient.request(id: 99, method: "ping"))
            #expect(try client.receiveResult()?.id == RequestID(99))
        }
    }

    @Test func invalidUTF8IsAParseErrorAndTheConnectionStaysOpen() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            try client.connection.write(Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","x":""#.utf8) + [0xC3, 0x28] + Array("\"}\n".utf8))
            let answer = try #require(try client.receiveError())
            #expect(answer.error.code == -32700)
            #expect(answer.id == nil)
            try client.send(RawClient.request(id: 2, method: "ping"))
            #expect(try client.receiveResult()?.id == RequestID(2))
        }
    }

    @Test func notificationsAreNeitherExecutedNorAnswered() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            try client.send(#"{"jsonrpc":"2.0","method":"ping"}"#)
            try client.send(#"{"jsonrpc":"2.0","method":"push","params":{"mutations":[{"mutationId":1,"type":"delete","id":"6f1c2a3e-1111-4222-8333-944455556666","baseVersion":1}]}}"#)
            try client.send(RawClient.request(id: 3, method: "ping"))
            let answer = try #require(try client.receiveResult())
            #expect(answer.id == RequestID(3))
            #expect(try CursorResult(json: answer.result).cursor == 0)  // the push notification was not executed
        }
    }

    @Test func hundredPipelinedRequestsInOneWriteAnswerInOrder() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            var batch = RawClient.hello(id: 0) + "\n"
            for id in 1...100 {
                batch += (id % 2 == 0
                    ? RawClient.request(id: id, method: "ping")
                    : RawClient.request(id: id, method: "pull", params: #"{"since":0}"#)) + "\n"
            }
            try client.connection.write(Array(batch.utf8))
            for id in 0...100 {
                #expect(try client.receiveResult()?.id == RequestID(Int64(id)))
            }
        }
    }

    @Test func twoMebibyteLineIsAnsweredWithLineTooLongThenClosed() async throws {
        try await withTestServer { server in
            let client = try RawClient(server)
            try client.greet()
            let huge = #"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""# + String(repeating: "x", count: 2 << 20) + "\"}}"
            try? client.send(huge)  // the server may stop reading and reset before everything is written
            let answer = try #require(try client.receiveError())
            #expect(answer.error.code == -32002)
            #expect(answer.id == nil)
            #expect(try client.receive() == nil)
        }
    }

    @Test func maxLineIsConfigurable() async throws {
        try await withTestServer({ $0.maximumLineLength = 300 }) { server in
            let client = try RawClient(server)
            try client.greet()  // the hello line is under 300 bytes
            try client.send(RawClient.request(id: 1, method: "ping", params: #"{"pad":""# + String(repeating: "y", count: 400) + "\"}"))
            #expect(try client.receiveError()?.error.code == -32002)
            #expect(try client.receive() == nil)
        }
    }

    @Test func helloTimeoutClosesSilentConnections() async throws {
        try await withTestServer({ $0.helloTimeout = .milliseconds(150) }) { server in
            let silent = try RawClient(server)
            #expect(try silent.receive() == nil)
            let greeted = try RawClient(server)
            try greeted.greet()
        }
    }

    @Test func disconnectMidLineLeavesTheServerServing() async throws {
        try await withTestServer { server in
            let quitter = try RawClient(server)
            try quitter.connection.write(Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
            quitter.connection.close()
            let client = try RawClient(server)
            try client.greet()
            try client.send(RawClient.request(id: 2, method: "ping"))
            #expect(try client.receiveResult()?.id == RequestID(2))
        }
    }

    @Test func beyondMaxConnectionsIsBusyThenClosed() async throws {
        try await withTestServer({ $0.maximumConnections = 3 }) { server in
            let held = try (0..<3).map { _ in try RawClient(server) }
            for client in held { try client.greet() }
            let extra = try RawClient(server)
            let answer = try #require(try extra.receiveError())
            #expect(answer.error.code == -32004)
            #expect(answer.error.reason == "busy")
            #expect(answer.id == nil)
            #expect(try extra.receive() == nil)
        }
    }

    @Test func watchSendsChangedNotifications() async throws {
        try await withTestServer { server in
            let watcher = try RawClient(server)
            try watcher.greet()
            try watcher.send(RawClient.request(id: 2, method: "watch"))
            #expect(try watcher.receiveResult()?.id == RequestID(2))
            let writer = try RawClient(server)
            try writer.greet()
            try writer.send(#"{"jsonrpc":"2.0","id":3,"method":"push","params":{"mutations":[{"mutationId":1,"type":"delete","id":"6f1c2a3e-1111-4222-8333-944455556666","baseVersion":1}]}}"#)
            #expect(try writer.receiveResult()?.id == RequestID(3))
            guard case .notification(let method, let params)? = try watcher.receive() else {
                Issue.record("expected a changed notification")
                return
            }
            #expect(method == "changed")
            #expect(try ChangedNotification(params: params).cursor == 1)
        }
    }

    @Test func thousandConcurrentConnectionsEachSayHelloAndPing() async throws {
        try await withTestServer { server in
            // Each says hello as it connects: on a loaded machine, making a thousand connections first once took
            // longer than the daemon's 10 s hello timeout, and the first were closed before they spoke.
            let clients = try (0..<1000).map { _ in
                let client = try RawClient(server)
                try client.send(RawClient.hello() + "\n" + RawClient.request(id: 2, method: "ping"))
                return client
            }
            for client in clients {
                #expect(try client.receiveResult()?.id == RequestID(1))
                #expect(try client.receiveResult()?.id == RequestID(2))
            }
            #expect(server.connectionCount == 1000)
        }
    }
}
