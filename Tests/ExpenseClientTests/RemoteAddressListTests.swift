import ExpenseClient
import ExpenseTransport
import Testing

/// `expense remote set` / `EXPENSE_SERVER` address lists: what is accepted, what is refused with which code, and
/// the order the addresses are tried in.
@Suite struct RemoteAddressListTests {
    @Test(arguments: [
        ("127.0.0.1:7468", ["127.0.0.1:7468"]),
        ("a.example:1,b.example:2", ["a.example:1", "b.example:2"]),
        (" a:1 , b:2 ", ["a:1", "b:2"]),
        ("tls://a:1,b:2", ["tls://a:1", "tls://b:2"]),
        ("tls://a:1,tls://b:2", ["tls://a:1", "tls://b:2"]),
        ("[::1]:7468,127.0.0.1:7469", ["[::1]:7468", "127.0.0.1:7469"]),
    ])
    func validListsParse(text: String, expected: [String]) throws {
        let list = try RemoteAddressList(parsing: text)
        #expect(list.addresses.map(\.description) == expected)
        #expect(list.addresses.allSatisfy { $0.tls == text.trimmingPrefix(" ").hasPrefix("tls://") })
    }

    @Test(arguments: [
        ("", "empty_address"),
        ("a:1,,b:2", "empty_address"),
        ("a:1,", "empty_address"),
        ("tls://", "empty_address"),
        ("a", "invalid_address"),
        ("a:1,b", "invalid_address"),
        ("::1:7468", "invalid_address"),
        ("http://a:1", "invalid_address"),
        ("a:1/ledger", "invalid_address"),
        ("a:0", "invalid_port"),
        ("a:65536", "invalid_port"),
        ("a:-1", "invalid_port"),
        ("a:http", "invalid_port"),
        ("[::1]:x", "invalid_port"),
        ("a:1,b:2,a:1", "duplicate_address"),
        ("A.example:1,a.EXAMPLE:1", "duplicate_address"),
        ("tls://a:1,tls://a:1", "duplicate_address"),
        ("a:1,tls://b:2", "mixed_schemes"),
        ((1...17).map { "h:\($0)" }.joined(separator: ","), "too_many_addresses"),
    ])
    func invalidListsAreRefusedWithTheirCode(text: String, code: String) {
        #expect(throws: RemoteAddressError.self) { try RemoteAddressList(parsing: text) }
        do {
            _ = try RemoteAddressList(parsing: text)
        } catch {
            #expect(error.code == code, "\(text): \(error)")
        }
    }

    /// Found by Scripts/fuzz's remote-files target: `tls://` repeated on a later item kept the spaces after it in
    /// the host (`tls://a:1,tls:// b:2` gave the host " b"), and a bracketed host that is not an IPv6 address could
    /// begin with a space or a bracket (`[ a]:1`, `[[a]:1`); the address written back (RemoteAddress.description, what
    /// `last_server` stores and the rotation compares) then parsed to another address or was refused.
    @Test(arguments: [
        ("tls://a:1,tls:// b:2", ["tls://a:1", "tls://b:2"]),
        ("tls://a:1, tls://\tb:2 ", ["tls://a:1", "tls://b:2"]),
        ("[a]:1", ["a:1"]),
        ("[::1]:1,[2001:db8::1]:2", ["[::1]:1", "[2001:db8::1]:2"]),
    ])
    func everyAddressIsWrittenBackAsTextThatParsesToIt(text: String, expected: [String]) throws {
        let list = try RemoteAddressList(parsing: text)
        #expect(list.addresses.map(\.description) == expected)
        for address in list.addresses {
            #expect(try RemoteAddressList(parsing: address.description).addresses == [address])
        }
        #expect(try RemoteAddressList(parsing: list.addresses.map(\.description).joined(separator: ",")) == list)
    }

    @Test(arguments: ["[ a]:1", "[[a]:1", "a:1,[ b]:2"])
    func aBracketedHostThatDoesNotWriteBackIsRefused(text: String) {
        #expect(throws: RemoteAddressError.self) { try RemoteAddressList(parsing: text) }
        do { _ = try RemoteAddressList(parsing: text) } catch { #expect(error.code == "invalid_address") }
    }

    @Test func theAddressThatWorkedLastComesFirstAndTheOthersAreShuffled() throws {
        let list = try RemoteAddressList(parsing: "a:1,b:2,c:3,d:4")
        // The shuffle sees every address but the preferred one.
        var shuffled: [String] = []
        let rotation = list.order(preferred: "c:3", shuffle: { addresses in
            shuffled = addresses.map(\.description)
            return addresses.reversed()
        })
        #expect(shuffled == ["a:1", "b:2", "d:4"])
        #expect(rotation.order.map(\.description) == ["c:3", "d:4", "b:2", "a:1"])
        // An address no longer in the list is ignored.
        #expect(list.order(preferred: "z:9", shuffle: { $0 }).order.map(\.description) == ["a:1", "b:2", "c:3", "d:4"])
        // The real shuffle keeps every address once.
        let real = list.order(preferred: nil)
        #expect(Set(real.order.map(\.description)) == ["a:1", "b:2", "c:3", "d:4"] && real.order.count == 4)
    }

    @Test func rotationMovesOnWrapsAroundAndSticks() throws {
        var rotation = try RemoteAddressList(parsing: "a:1,b:2,c:3").order(preferred: nil, shuffle: { $0 })
        #expect(rotation.current.description == "a:1")
        #expect(rotation.pass.map(\.description) == ["a:1", "b:2", "c:3"])
        rotation.moveOn()
        rotation.moveOn()
        #expect(rotation.current.description == "c:3")
        #expect(rotation.pass.map(\.description) == ["c:3", "a:1", "b:2"])
        rotation.moveOn()
        #expect(rotation.current.description == "a:1")
        rotation.stick(to: rotation.order[1])
        #expect(rotation.current.description == "b:2")
    }
}
