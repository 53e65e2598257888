import Testing
@testable import ExpenseTransport

@Suite struct SocketAddressTests {
    @Test(arguments: [
        ("127.0.0.1:7468", "127.0.0.1", UInt16(7468)),
        ("localhost:0", "localhost", 0),
        ("[::1]:80", "::1", 80),
        ("0.0.0.0:65535", "0.0.0.0", 65535),
    ])
    func parses(text: String, host: String, port: UInt16) throws {
        let address = try SocketAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == text)
    }

    @Test(arguments: ["", "7468", "host:", ":7468", "host:65536", "host:-1", "::1:80", "[::1]80", "host:８０"])
    func refuses(text: String) {
        #expect(throws: TransportError.invalidAddress(text)) { try SocketAddress(parsing: text) }
    }

    /// Found by Scripts/fuzz's remote-files target: `[[1]:836` gave the host "[1", written `[1:836`, which is
    /// refused. A host beginning with `[` is not a host; the address is refused when read.
    @Test(arguments: ["[[1]:836", "[[a]:1", "[[]:1", "[[::1]:1"])
    func refusesAHostBeginningWithABracket(text: String) {
        #expect(throws: TransportError.invalidAddress(text)) { try SocketAddress(parsing: text) }
    }

    /// What parses is written (description) as text that parses to the same address.
    @Test(arguments: ["a:1", "[a]:1", "[::1]:1", "a]:1", " a :1", "[a ]:1"])
    func anAddressIsWrittenAsTextThatParsesToIt(text: String) throws {
        let address = try SocketAddress(parsing: text)
        #expect(try SocketAddress(parsing: address.description) == address)
    }

    @Test func loopback() throws {
        #expect(try SocketAddress(parsing: "127.0.0.1:1").isLoopback)
        #expect(try SocketAddress(parsing: "[::1]:1").isLoopback)
        #expect(try !SocketAddress(parsing: "0.0.0.0:1").isLoopback)
    }
}
