import ExpenseTransport

/// One address of a remote: `HOST:PORT`, plaintext or TLS.
package struct RemoteAddress: Hashable, Sendable, CustomStringConvertible {
    /// Where to connect.
    package var socketAddress: SocketAddress
    /// Whether the connection is TLS (`tls://`).
    package var tls: Bool

    package init(_ socketAddress: SocketAddress, tls: Bool) {
        self.socketAddress = socketAddress
        self.tls = tls
    }

    /// `tls://HOST:PORT` or `HOST:PORT`: the form ``RemoteConfiguration/server`` holds for one address.
    package var description: String { (tls ? RemoteTLS.scheme : "") + socketAddress.description }
}

/// Why an address list (`expense remote set`, `EXPENSE_SERVER`) is refused; `code` is stable.
package enum RemoteAddressError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The list, or one of its comma-separated items, is empty (`a:1,,b:2`, a trailing comma).
    case emptyItem(position: Int)
    /// An item is not `HOST:PORT` (no port, an unbracketed IPv6 address, another scheme such as `http://`).
    case invalidAddress(String)
    /// An item's port is not a number from 1 to 65535.
    case invalidPort(String)
    /// The same `HOST:PORT` twice (host names compared in any case).
    case duplicate(String)
    /// A `tls://` item in a list that does not start with `tls://`: one scheme for the whole list, so a TLS
    /// remote can never fall back to plaintext.
    case mixedSchemes(String)
    /// More than ``RemoteAddressList/maximumCount`` addresses.
    case tooMany(Int)

    /// A stable snake_case code.
    package var code: String {
        switch self {
        case .emptyItem: "empty_address"
        case .invalidAddress: "invalid_address"
        case .invalidPort: "invalid_port"
        case .duplicate: "duplicate_address"
        case .mixedSchemes: "mixed_schemes"
        case .tooMany: "too_many_addresses"
        }
    }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .emptyItem(let position):
            "address \(position) of the list is empty; write HOST:PORT,HOST:PORT without empty items"
        case .invalidAddress(let item):
            "'\(item)' is not HOST:PORT (an IPv6 host in brackets: [::1]:7468)"
        case .invalidPort(let item):
            "the port of '\(item)' is not a number from 1 to 65535"
        case .duplicate(let item):
            "'\(item)' is in the list twice"
        case .mixedSchemes(let item):
            "'\(item)' is tls:// but the list is not: write tls:// once in front, for the whole list (tls://HOST1:PORT1,HOST2:PORT2)"
        case .tooMany(let count):
            "\(count) addresses; at most \(RemoteAddressList.maximumCount)"
        }
    }

    package var description: String { "\(code): \(message)" }
}

/// The addresses of one remote: `HOST1:PORT1,HOST2:PORT2,…`, every one serving the same ledger (its ledger id
/// in `hello` tells; docs/usage.md, "Several addresses", Protocol.md §5.7).
///
/// One scheme for the whole list: `tls://` written once in front makes every address TLS (an item may repeat
/// it); a `tls://` item in a plaintext list is refused, so a TLS remote never falls back to plaintext.
package struct RemoteAddressList: Hashable, Sendable {
    /// The most addresses a list may hold.
    package static let maximumCount = 16

    /// In the order written (never empty).
    package let addresses: [RemoteAddress]

    /// Parses and validates `text`; spaces around items are ignored.
    /// - Throws: ``RemoteAddressError``.
    package init(parsing text: String) throws(RemoteAddressError) {
        let (rest, tls) = RemoteTLS.split(text.trimmingASCIISpaces)
        let items = rest.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingASCIISpaces }
        guard items.count <= Self.maximumCount else { throw .tooMany(items.count) }
        var addresses: [RemoteAddress] = []
        var seen = Set<String>()
        for (index, written) in items.enumerated() {
            var item = written
            if item.hasPrefix(RemoteTLS.scheme) {
                guard tls else { throw .mixedSchemes(written) }
                // Spaces after it go as they do after the list's own `tls://`.
                item = String(item.dropFirst(RemoteTLS.scheme.count)).trimmingASCIISpaces
            }
            guard !item.isEmpty else { throw .emptyItem(position: index + 1) }
            guard !item.contains("/") else { throw .invalidAddress(written) }
            let address = try Self.address(item, written: written)
            guard seen.insert(address.description.lowercased()).inserted else { throw .duplicate(written) }
            addresses.append(RemoteAddress(address, tls: tls))
        }
        self.addresses = addresses
    }

    /// One item without its scheme: `HOST:PORT` (`[IPv6]:PORT`), the port from 1 to 65535.
    private static func address(_ item: String, written: String) throws(RemoteAddressError) -> SocketAddress {
        let port: Substring?
        if item.hasPrefix("[") {
            port = item.range(of: "]:").map { item[$0.upperBound...] }
        } else {
            port = item.count(where: { $0 == ":" }) == 1 ? item.split(separator: ":", omittingEmptySubsequences: false).last : nil
        }
        guard let port, !port.isEmpty else { throw .invalidAddress(written) }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = UInt16(port), number > 0 else {
            throw .invalidPort(written)
        }
        let address: SocketAddress
        do { address = try SocketAddress(parsing: item) } catch { throw .invalidAddress(written) }
        // The address is written back as RemoteAddress.description (`last_server`, the rotation's preferred
        // address): it must parse to the same address. A bracketed host that is no IPv6 address may not
        // (`[ a]:1` is written ` a:1`, whose space the list trims; `[[a]:1` is written `[a:1`).
        let text = address.description
        guard text == text.trimmingASCIISpaces, (try? SocketAddress(parsing: text)) == address else {
            throw .invalidAddress(written)
        }
        return address
    }

    /// The order one command tries the addresses in: `preferred` (the one that worked last, as
    /// ``RemoteAddress/description`` writes it) first when it is in the list, then the others shuffled, so many
    /// clients spread over the daemons and each sticks to the one that works.
    package func order(preferred: String?,
                       shuffle: ([RemoteAddress]) -> [RemoteAddress] = { $0.shuffled() }) -> AddressRotation {
        let first = addresses.first { $0.description == preferred }
        let others = shuffle(addresses.filter { $0 != first })
        return AddressRotation(order: (first.map { [$0] } ?? []) + others)
    }
}

/// The addresses of a remote in the order they are tried, and the current one: a failure moves on to the next,
/// wrapping around; a pass is one try of every address starting at the current one.
package struct AddressRotation: Hashable, Sendable {
    /// Never empty.
    package let order: [RemoteAddress]
    /// The position of ``current`` in ``order``.
    package private(set) var index = 0

    package init(order: [RemoteAddress]) {
        precondition(!order.isEmpty, "a remote has at least one address")
        self.order = order
    }

    /// The address to try now.
    package var current: RemoteAddress { order[index] }

    /// Every address once, starting at ``current``.
    package var pass: [RemoteAddress] { Array(order[index...] + order[..<index]) }

    /// The current address failed: the next one is current.
    package mutating func moveOn() { index = (index + 1) % order.count }

    /// `address` worked: it stays current.
    package mutating func stick(to address: RemoteAddress) {
        if let position = order.firstIndex(of: address) { index = position }
    }
}

extension String {
    /// Without spaces and tabs at either end.
    fileprivate var trimmingASCIISpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
