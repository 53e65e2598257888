import FoundationEssentials
// Time zones by name and the calendar's days in them come from ICU: without this library loaded,
// FoundationEssentials knows no `TimeZone(identifier:)` at all (not even "UTC"), and a daemon that links no
// Foundation would refuse every time-zone setting.
import FoundationInternationalization

/// A ledger setting shared by every machine (`expense config set timezone …`): one record per name, whose id
/// is derived from the name.
public struct LedgerSetting: Hashable, Sendable {
    /// The settings there are.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        /// The ledger's time zone (an IANA identifier such as `Europe/Berlin`): which calendar day "today" is
        /// for budgets and recurring rules.
        case timezone
    }

    public var name: Name
    public var value: String

    public init(name: Name, value: String) {
        self.name = name
        self.value = value
    }

    /// The namespace of setting ids (a random UUID chosen once for this program).
    public static let namespace = UUID(uuid: (0x2c, 0x7d, 0x90, 0x1e, 0x64, 0xa3, 0x4e, 0x5f,
                                              0xb7, 0x08, 0xc9, 0x3d, 0x55, 0x12, 0xe6, 0x4b))

    /// The setting's id: a name-based UUID of its name.
    public static func id(_ name: Name) -> UUID { NameBasedUUID.make(namespace: namespace, name: NameBasedUUID.name([name.rawValue])) }

    public var id: UUID { Self.id(name) }

    /// The time zone a `timezone` value names, or `nil` when it names none.
    public static func timeZone(_ value: String) -> TimeZone? { TimeZone(identifier: value) }
}
