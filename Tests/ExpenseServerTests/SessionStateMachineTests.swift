import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing
@testable import ExpenseServer

/// The connection's protocol as transcripts of inputs and the actions the machine returns: no socket, no ledger
/// thread (postgres-nio's `ConnectionStateMachineTests` is the model). End-to-end behaviour stays in
/// `ServerProtocolTests`.
@Suite struct SessionStateMachineTests {
    private static let clientId = UUID(uuidString: "6f1c2a3e-1111-4222-8333-944455556666") ?? UUID()

    private static func line(_ text: String) -> Result<RPCRequest, RPCRequestFailure> { RPCRequest.parse(Array(text.utf8)) }

    private static func request(_ id: Int, _ method: String, _ params: String = "{}") -> Result<RPCRequest, RPCRequestFailure> {
        line(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
    }

    private static let helloParams = #"{"protocol":1,"ledger":"default","token":"t","clientId":"6f1c2a3e-1111-4222-8333-944455556666"}"#

    private static func hello(_ id: Int = 1) -> Result<RPCRequest, RPCRequestFailure> { request(id, "hello", helloParams) }

    private static func helloRequest() throws -> HelloRequest {
        try HelloRequest(params: JSONParser.parse(Array(helloParams.utf8)))
    }

    private static func binding(_ credential: TokenCredential = TokenCredential(name: "default", role: .owner)) -> SessionBinding {
        SessionBinding(ledger: FakeLedger(name: "default"), clientId: clientId, credential: credential, kinds: [])
    }

    private static func parsed(_ result: Result<RPCRequest, RPCRequestFailure>) throws -> RPCRequest { try result.get() }

    /// The method table and the protocol's list of methods are the same names.
    @Test func theMethodTableAnswersExactlyTheProtocolsMethods() {
        #expect(Set(MethodRoute.table.keys) == Set(ProtocolMethods.all))
        #expect(MethodRoute.table.count == ProtocolMethods.all.count)
    }

    @Test func helloEstablishesTheSession() throws {
        var machine = SessionStateMachine()
        #expect(machine.lineReceived(Self.hello(7)) == .authenticate(try Self.helloRequest(), RequestID(7)))
        #expect(machine.state == .authenticating)
        let binding = Self.binding()
        #expect(machine.greeted(binding, response: [1]) == .greet([1], binding))
        #expect(machine.state == .established(binding, watch: .none))
        let ping = try Self.parsed(Self.request(8, "ping"))
        #expect(machine.lineReceived(.success(ping)) == .dispatch(ping, RequestID(8), binding))
        #expect(machine.answered(id: RequestID(8)) == .send(.proceed))
        #expect(machine.connectionClosed() == .release(binding, watchID: nil))
        #expect(machine.state == .closed)
    }

    @Test func beforeHelloEveryOtherMethodIsUnauthorizedAndTheConnectionStaysOpen() {
        var machine = SessionStateMachine()
        for (index, method) in ["ping", "push", "pull", "summary", "stats", "history", "watch", "nonsense"].enumerated() {
            #expect(machine.lineReceived(Self.request(index, method)) == .sendError(RequestID(Int64(index)), .helloRequired, .proceed))
            #expect(machine.state == .awaitingHello)
        }
        #expect(machine.connectionClosed() == SessionStateMachine.Action.none)
    }

    @Test func notificationsAndUnparsableLinesAreAnsweredWithoutChangingTheState() {
        var machine = SessionStateMachine()
        #expect(machine.lineReceived(Self.line(#"{"jsonrpc":"2.0","method":"hello","params":{}}"#)) == SessionStateMachine.Action.none)
        let garbage = Self.line("{nope")
        guard case .failure(let failure) = garbage else { Issue.record("parsed"); return }
        #expect(machine.lineReceived(garbage) == .send(failure.responseLine, .proceed))
        #expect(machine.state == .awaitingHello)
    }

    @Test func aBadHelloIsAnsweredAndMayBeRetriedButAnUnsupportedProtocolCloses() throws {
        var machine = SessionStateMachine()
        let missing = machine.lineReceived(Self.request(1, "hello", #"{"protocol":1}"#))
        guard case .sendError(RequestID(1), let error, .proceed) = missing else { Issue.record("\(missing)"); return }
        #expect(error.code == RPCError.invalidParamsCode)
        #expect(machine.state == .awaitingHello)
        let newer = machine.lineReceived(Self.request(2, "hello", #"{"protocol":2}"#))
        guard case .sendError(RequestID(2), let unsupported, .close) = newer else { Issue.record("\(newer)"); return }
        #expect(unsupported.code == RPCError.unsupportedProtocolCode)
        #expect(machine.state == .refusing)
    }

    @Test func aWrongTokenOrAThrottledHelloIsRefusedThenClosed() {
        var machine = SessionStateMachine()
        _ = machine.lineReceived(Self.hello(3))
        #expect(machine.helloRefused(id: RequestID(3)) == .sendError(RequestID(3), .unauthorized(), .close))
        #expect(machine.state == .refusing)
        #expect(machine.connectionClosed() == SessionStateMachine.Action.none)

        var throttled = SessionStateMachine()
        _ = throttled.lineReceived(Self.hello(4))
        #expect(throttled.helloThrottled(id: RequestID(4), retryAfter: 9) == .sendError(RequestID(4), .throttled(retryAfter: 9), .close))
    }

    @Test func aFailedHelloLeavesTheSessionAwaitingHello() throws {
        var machine = SessionStateMachine()
        _ = machine.lineReceived(Self.hello(5))
        let failure = RPCError.internalError("disk")
        #expect(machine.helloFailed(id: RequestID(5), error: failure) == .sendError(RequestID(5), failure, .proceed))
        #expect(machine.state == .awaitingHello)
        #expect(machine.lineReceived(Self.hello(6)) == .authenticate(try Self.helloRequest(), RequestID(6)))
    }

    @Test func aSecondHelloIsRefusedAndAnUnknownMethodIsNotFound() {
        let binding = Self.binding()
        var machine = SessionStateMachine(.established(binding, watch: .none))
        let again = machine.lineReceived(Self.hello(9))
        guard case .sendError(RequestID(9), let error, .proceed) = again else { Issue.record("\(again)"); return }
        #expect(error.code == RPCError.invalidRequestCode)
        #expect(error.reason == "already_authenticated")
        #expect(machine.lineReceived(Self.request(10, "nonsense")) == .sendError(RequestID(10), .methodNotFound("nonsense"), .proceed))
        #expect(machine.state == .established(binding, watch: .none))
    }

    @Test func everyLedgerMethodOfTheTableIsDispatched() throws {
        let binding = Self.binding()
        var machine = SessionStateMachine(.established(binding, watch: .none))
        for (index, method) in ["ping", "push", "pull", "summary", "stats", "history"].enumerated() {
            let request = try Self.parsed(Self.request(index, method))
            #expect(machine.lineReceived(.success(request)) == .dispatch(request, RequestID(Int64(index)), binding))
        }
    }

    @Test func watchStartsOnceThenOnlyAnswersTheHead() {
        let binding = Self.binding()
        var machine = SessionStateMachine(.established(binding, watch: .none))
        #expect(machine.lineReceived(Self.request(1, "watch")) == .startWatch(RequestID(1), binding))
        #expect(machine.state == .established(binding, watch: .starting))
        #expect(machine.watchStarted(id: RequestID(1), watchID: 42, head: 7)
                == .send(RPCResponse.success(id: RequestID(1), result: CursorResult(cursor: 7)), .proceed))
        #expect(machine.lineReceived(Self.request(2, "watch")) == .answerHead(RequestID(2), binding))
        let bad = machine.lineReceived(Self.request(3, "watch", "[]"))
        guard case .sendError(RequestID(3), let error, .proceed) = bad else { Issue.record("\(bad)"); return }
        #expect(error.code == RPCError.invalidParamsCode)
        #expect(machine.connectionClosed() == .release(binding, watchID: 42))
    }

    @Test func aWatcherThatStartsAfterTheConnectionClosedIsStopped() {
        let binding = Self.binding()
        var machine = SessionStateMachine(.established(binding, watch: .none))
        _ = machine.lineReceived(Self.request(1, "watch"))
        #expect(machine.connectionClosed() == .release(binding, watchID: nil))
        #expect(machine.watchStarted(id: RequestID(1), watchID: 5, head: 0) == .stopWatch(id: 5))
    }

    @Test func aRevokedTokenClosesAndAnswersWhatIsInFlightUnauthorized() throws {
        let binding = Self.binding()
        var machine = SessionStateMachine(.established(binding, watch: .active(id: 3)))
        let push = try Self.parsed(Self.request(4, "push", #"{"mutations":[]}"#))
        #expect(machine.lineReceived(.success(push)) == .dispatch(push, RequestID(4), binding))
        #expect(machine.tokenRevoked() == .close)
        #expect(machine.state == .closing(binding, watch: .active(id: 3)))
        #expect(machine.answered(id: RequestID(4)) == .instead(.sendError(RequestID(4), .unauthorized("the token was revoked"), .close)))
        #expect(machine.tokenRevoked() == SessionStateMachine.Action.none)
        #expect(machine.connectionClosed() == .release(binding, watchID: 3))
        #expect(machine.answered(id: RequestID(4)) == .instead(.none))
    }

    @Test func aHelloAnsweredAfterTheConnectionWentAwayOnlyReleasesItsCredential() {
        var machine = SessionStateMachine()
        _ = machine.lineReceived(Self.hello())
        #expect(machine.connectionClosed() == SessionStateMachine.Action.none)
        let binding = Self.binding()
        #expect(machine.greeted(binding, response: [1]) == .release(binding, watchID: nil))
        #expect(machine.state == .closed)
    }

    /// The shared (PostgreSQL) throttle answers off the loop's thread, after its query: while it is out the
    /// session stays `authenticating`, and a verdict arriving after the connection went away sends nothing.
    @Test func aThrottleVerdictFromTheDatabaseAfterTheConnectionWentAwaySendsNothing() {
        var machine = SessionStateMachine()
        _ = machine.lineReceived(Self.hello(5))
        #expect(machine.lineReceived(Self.request(6, "ping")) == .sendError(RequestID(6), .helloRequired, .proceed))
        #expect(machine.state == .authenticating)
        #expect(machine.connectionClosed() == SessionStateMachine.Action.none)
        #expect(machine.helloThrottled(id: RequestID(5), retryAfter: 40) == SessionStateMachine.Action.none)
        #expect(machine.helloRefused(id: RequestID(5)) == SessionStateMachine.Action.none)
        #expect(machine.state == .closed)
    }
}
