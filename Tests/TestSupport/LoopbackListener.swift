import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1, port 0 (the system picks a free one), for the test servers and proxies.
public enum LoopbackListener {
    /// Binds and listens; returns the descriptor (close-on-exec: a spawned daemon never holds it) and the port.
    public static func open() throws -> (fd: Int32, port: UInt16) {
        let (fd, port) = try bound(reusable: false)
        guard listen(fd, 16) == 0 else {
            close(fd)
            throw ProxyError.cannotListen
        }
        return (fd, port)
    }

    /// A socket bound to 127.0.0.1 on a port the system picked, not listening.
    private static func bound(reusable: Bool) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        if fd >= 0, reusable { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0 else {
            if fd >= 0 { close(fd) }
            throw ProxyError.cannotListen
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}

/// A fake daemon on 127.0.0.1 (port 0) that answers every connection's first line (the client's `hello`, request
/// id 1) with a successful `hello` result for the given ledger id and epoch (a new ledger's by default: what a
/// wrong entry in an address list looks like to a client). With `failing`, every later request is answered with
/// that error reason (−32007 `storage_unavailable`: a daemon whose database is down); otherwise nothing more.
public final class ImpostorDaemon: Sendable {
    private let listener: AcceptingListener
    /// The ledger id it reports.
    public let ledgerId: UUID

    public init(ledgerId: UUID = UUID(), epoch: UUID = UUID(), failing reason: String? = nil) throws {
        self.ledgerId = ledgerId
        let hello = Array(Self.hello(ledgerId: ledgerId, epoch: epoch).utf8)
        listener = try AcceptingListener { client in
            Thread { Self.serve(client, hello: hello, failing: reason) }.start()
        }
    }

    /// The port it listens on.
    public var port: UInt16 { listener.port }

    /// `127.0.0.1:PORT`.
    public var address: String { listener.address }

    /// Stops accepting.
    public func stop() { listener.stop() }

    private static func hello(ledgerId: UUID, epoch: UUID) -> String {
        #"{"jsonrpc":"2.0","id":1,"result":{"currency":"USD","cursor":0,"epoch":"\#(epoch.uuidString.lowercased())","#
            + #""epochCursor":0,"lastMutationId":0,"ledger":"default","ledgerId":"\#(ledgerId.uuidString.lowercased())","#
            + #""maxLine":1048576,"protocol":1,"role":"owner","server":"impostor","tokenName":"default"}}"# + "\n"
    }

    private static func serve(_ client: Int32, hello: [UInt8], failing reason: String?) {
        defer { close(client) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        var buffer: [UInt8] = []
        var answered = false
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            buffer += chunk[0..<count]
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                var answer = hello
                if answered {
                    guard let reason else { continue }
                    answer = Array(error(id: requestId(line), reason: reason).utf8)
                }
                answered = true
                _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// The digits after `"id":` in a request line.
    private static func requestId(_ line: String) -> String {
        guard let range = line.range(of: #""id":"#) else { return "null" }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty ? "null" : String(digits)
    }

    private static func error(id: String, reason: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32007,"data":{"reason":"\#(reason)"},"message":"the database is unavailable"}}"# + "\n"
    }
}

extension LoopbackListener {
    /// A loopback address that nothing listens on, whose port no other server of the test process is given.
    ///
    /// The port stays bound, with `SO_REUSEADDR` and never listening, for the rest of the test process: a connection
    /// to it is refused at once, and Linux skips a port bound so when it picks one for a bind to port 0. A port that
    /// was merely closed, like a stopped daemon's, can be handed to the next server that binds port 0, and a client
    /// meant to find nothing then greets another test's server. A server asked for this address itself binds it
    /// with `SO_REUSEADDR`, as `expensed` does, and takes it over (a test that brings a daemon up there later).
    /// The descriptor is kept open on purpose: a few per test run.
    public static func deadAddress() throws -> String {
        let (_, port) = try bound(reusable: true)
        return "127.0.0.1:\(port)"
    }
}
