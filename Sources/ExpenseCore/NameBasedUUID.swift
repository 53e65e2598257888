import FoundationEssentials

/// Name-based UUIDs (RFC 9562 §5.5, version 5): the same namespace and name give the same id on every machine,
/// so records that two machines make offline for the same thing (an imported row, a budget for one category
/// and currency, one occurrence of a recurring rule) are one record once they sync.
public enum NameBasedUUID {
    /// SHA-1 of the namespace's 16 bytes and the name; version 5, variant 10.
    public static func make(namespace: UUID, name: [UInt8]) -> UUID {
        let space = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var hash = SHA1.digest(space + name)
        hash[6] = hash[6] & 0x0F | 0x50
        hash[8] = hash[8] & 0x3F | 0x80
        return UUID(uuid: (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7],
                           hash[8], hash[9], hash[10], hash[11], hash[12], hash[13], hash[14], hash[15]))
    }

    /// The bytes of `id` as a name part (16 bytes, in order).
    public static func bytes(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }

    /// Texts joined as a name: each followed by a NUL byte (no validated field may hold one).
    public static func name(_ parts: [String]) -> [UInt8] {
        var name: [UInt8] = []
        for part in parts {
            name.append(contentsOf: part.utf8)
            name.append(0)
        }
        return name
    }
}
