/// An address or a CIDR range (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`): the proxies
/// `serve --proxy-protocol` trusts to send a PROXY header.
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the range (its host bits are zero).
    public let network: IPAddress
    /// How many leading bits an address must share with ``network``: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Parses `ADDRESS` (a single address: the full prefix) or `ADDRESS/BITS`.
    ///
    /// A range within the IPv4-mapped block (`::ffff:10.0.0.5`, `::ffff:10.0.0.0/104`: a prefix of 96 bits or
    /// more) is the IPv4 range it stands for (`10.0.0.5/32`, `10.0.0.0/8`): ``contains(_:)`` reads every peer as
    /// its IPv4 address, so kept as IPv6 it would match no peer at all.
    /// - Throws: ``TransportError/invalidAddressRange(_:)`` when the address or the prefix is not valid, or
    ///   when the address has bits set past the prefix (`10.0.0.1/8`: a typo for `10.0.0.1` or for `10.0.0.0/8`?).
    public init(parsing text: String) throws(TransportError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parsing: parts[0]) else { throw .invalidAddressRange(text) }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard let value = DecimalText.value(parts[1].utf8, maximum: bits) else { throw .invalidAddressRange(text) }
            length = value
        }
        guard Self.masked(address.bytes, to: length) == address.bytes else { throw .invalidAddressRange(text) }
        if address.bytes.count == 16, length >= 96, address.unmapped.isIPv4 {
            network = address.unmapped
            prefixLength = length - 96
        } else {
            network = address
            prefixLength = length
        }
    }

    /// Whether `address` is in the range; an IPv4-mapped IPv6 address matches as its IPv4 address.
    public func contains(_ address: IPAddress) -> Bool {
        let address = address.unmapped
        guard address.bytes.count == network.bytes.count else { return false }
        return Self.masked(address.bytes, to: prefixLength) == network.bytes
    }

    /// `ADDRESS/BITS`.
    public var description: String { "\(network)/\(prefixLength)" }

    /// `bytes` with every bit past the first `length` cleared.
    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8(0xFF) >> kept)
        }
    }
}
