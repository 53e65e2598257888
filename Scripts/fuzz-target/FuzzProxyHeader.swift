// libFuzzer target `proxy`: the PROXY protocol v1/v2 header parser (ProxyHeader.parse), fed the input as the
// first bytes of a connection from a listed proxy, and the address parsers it and `serve --proxy-protocol` use
// (IPAddress(parsing:), IPAddressRange(parsing:)).
//
// Checked on every input, besides never crashing:
// - a header's length is at least 1, at most the input's length and the version's bound (107 or 2,048 bytes);
//   its bytes alone parse to the same header; a relayed header's hosts are numeric addresses written in the
//   canonical form IPAddress writes;
// - `needMore` only below the bounds: the daemon keeps the bytes while it waits, so they must stay bounded;
// - the parse is incremental as LoopConnection uses it (all bytes so far, again after each read): for every
//   prefix tried (a dozen, at the signature's and the fixed header's edges, the middle, the end), a header
//   there is the whole input's header (the bytes after it are not looked at), every prefix shorter than the
//   whole input's header needs more, and a prefix found invalid stays invalid with more bytes;
// - an address or range that parses is written (description) as text that parses to the same value, and a
//   range contains its own network address.
// Built by Scripts/fuzz together with ProxyHeader.swift, ProxyHeaderError.swift, IPAddress.swift,
// IPAddressRange.swift, SocketAddress.swift, TransportError.swift, TLSError.swift and CertificateFingerprint.swift
// (the last two only because TransportError names them) of ExpenseTransport and FuzzFailure.swift as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = ProxyHeader.parse(bytes)
    switch whole {
    case .header(let header, let length):
        let bound = bytes.first == ProxyHeader.version2Signature[0] ? ProxyHeader.maximumVersion2Length : ProxyHeader.maximumVersion1Length
        fuzzCheck(length >= 1 && length <= bytes.count && length <= bound,
                  "a header of \(length) bytes in an input of \(bytes.count)", input: bytes)
        fuzzCheck(ProxyHeader.parse(Array(bytes[..<length])) == whole, "the header's own bytes parse differently", input: bytes)
        if case .relayed(let source, let destination) = header {
            for address in [source, destination] {
                fuzzCheck(IPAddress(parsing: address.host)?.description == address.host,
                          "a relayed host that is not a canonical numeric address: \(address.host)", input: bytes)
            }
        }
    case .needMore:
        fuzzCheck(bytes.count < ProxyHeader.maximumVersion2Length, "needMore with \(bytes.count) bytes held", input: bytes)
    case .invalid(let error):
        _ = error.code
        _ = error.description
    }
    checkPrefixes(bytes, whole: whole)
    checkAddressText(bytes)
    return 0
}

/// The prefixes the daemon may have seen before the whole input arrived agree with the whole input's parse.
private func checkPrefixes(_ bytes: [UInt8], whole: ProxyHeader.Parse) {
    var cuts: Set<Int> = [1, 5, 6, 11, 12, 13, 14, 15, 16, bytes.count / 2, bytes.count - 1]
    if case .header(_, let length) = whole { cuts.formUnion([length - 1, length, length + 1]) }
    for cut in cuts where cut > 0 && cut < bytes.count {
        let part = ProxyHeader.parse(Array(bytes[..<cut]))
        switch (part, whole) {
        case (.header, _):
            fuzzCheck(part == whole, "the first \(cut) bytes parse to a header the whole input does not (\(part) vs \(whole))",
                      input: bytes)
        case (.invalid, .invalid):
            break
        case (.invalid, _):
            fuzzFailure("the first \(cut) bytes are invalid but the whole input is \(whole)", input: bytes)
        case (.needMore, .header(_, let length)):
            fuzzCheck(cut < length, "the first \(cut) bytes need more, past the header's \(length) bytes", input: bytes)
        case (.needMore, _):
            break
        }
        if case .header(_, let length) = whole, cut < length {
            fuzzCheck(part == .needMore, "the first \(cut) bytes of a \(length)-byte header give \(part)", input: bytes)
        }
    }
}

/// The input as the text of an address and of a range (what a v1 header and `--proxy-protocol` carry).
private func checkAddressText(_ bytes: [UInt8]) {
    guard bytes.count <= 64 else { return }
    let text = String(decoding: bytes, as: UTF8.self)
    if let address = IPAddress(parsing: text) {
        fuzzCheck(IPAddress(parsing: address.description) == address, "\(address) does not parse back to itself", input: bytes)
        fuzzCheck(IPAddress(parsing: address.unmapped.description) == address.unmapped,
                  "\(address.unmapped) does not parse back to itself", input: bytes)
    }
    if let range = try? IPAddressRange(parsing: text) {
        fuzzCheck((try? IPAddressRange(parsing: range.description)) == range, "\(range) does not parse back to itself", input: bytes)
        fuzzCheck(range.contains(range.network), "\(range) does not contain its network address", input: bytes)
    }
}
