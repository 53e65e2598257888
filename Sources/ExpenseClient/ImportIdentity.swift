import ExpenseCore
import Foundation

/// The deterministic id of an imported row that carries none: a name-based UUID (RFC 9562 version 5, SHA-1
/// over a namespace and a name) of the row's validated content and its occurrence among identical rows of the
/// same file.
///
/// So importing the same bank file twice, on one machine or on two, gives every row the same id: the second
/// import finds them present, and two machines' creates of one id converge on the daemon (an identical create
/// of an existing id is applied, Protocol.md "push"). Two genuinely identical rows in one file are rows 1 and
/// 2 of their kind and get two ids, so both are kept.
package enum ImportIdentity {
    /// The namespace of every imported row's id (a random UUID chosen once for this program).
    package static let namespace = UUID(uuid: (0x11, 0x1d, 0x3f, 0x3f, 0x14, 0x68, 0x4e, 0x01,
                                               0xb4, 0x8b, 0xd6, 0xd5, 0x32, 0x28, 0x40, 0x9a))

    /// The id of the `occurrence`-th (from 1) row of a file whose content is `expense` (its id is ignored):
    /// the date, the amount in minor units, the currency, the category and the note, each followed by a NUL
    /// byte (no field may hold one), then the occurrence in decimal.
    package static func id(date: CalendarDay, amount: Int64, currency: Currency, category: String, note: String,
                           occurrence: Int) -> UUID {
        var name: [UInt8] = []
        for field in [date.description, String(amount), currency.code, category, note] {
            name.append(contentsOf: field.utf8)
            name.append(0)
        }
        name.append(contentsOf: String(occurrence).utf8)
        return nameBased(namespace: namespace, name: name)
    }

    /// RFC 9562 §5.5 (``NameBasedUUID``).
    package static func nameBased(namespace: UUID, name: [UInt8]) -> UUID {
        NameBasedUUID.make(namespace: namespace, name: name)
    }
}
