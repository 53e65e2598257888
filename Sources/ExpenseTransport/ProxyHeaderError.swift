/// Why a connection from a listed proxy (`serve --proxy-protocol`) was closed before its PROXY header was read.
/// Its ``description`` names the rule that failed, never the peer's bytes.
public enum ProxyHeaderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The first bytes are neither `PROXY ` (version 1) nor the 12-byte version 2 signature.
    case missing
    /// Longer than the bound: a version 1 line without CRLF in its first 107 bytes, or a version 2 header over
    /// ``ProxyHeader/maximumVersion2Length`` bytes.
    case tooLong(limit: Int)
    /// The signature matched but what follows does not (the named part: a version, command, family, address,
    /// port, TLV or line end).
    case malformed(String)
    /// The connection ended before the header was complete.
    case truncated

    /// A stable snake_case code.
    public var code: String {
        switch self {
        case .missing: "proxy_header_missing"
        case .tooLong: "proxy_header_too_long"
        case .malformed: "proxy_header_malformed"
        case .truncated: "proxy_header_truncated"
        }
    }

    public var description: String {
        switch self {
        case .missing: "no PROXY protocol header from a listed proxy"
        case .tooLong(let limit): "PROXY protocol header longer than \(limit) bytes"
        case .malformed(let part): "malformed PROXY protocol header (\(part))"
        case .truncated: "closed before its PROXY protocol header was complete"
        }
    }
}
