import Foundation

/// One validated expense. Only ``ExpenseValidator/validate(_:)`` makes one from outside input,
/// so holding an `Expense` means every rule in ``ExpenseRules`` holds.
public struct Expense: Hashable, Sendable, Identifiable {
    /// Made by the client that recorded the expense; written in lower case.
    public let id: UUID
    /// Whole minor units of ``currency``, 1 … 2^53−1.
    public let amount: Int64
    public let currency: Currency
    /// Trimmed, 1 to 64 characters, no control characters.
    public let category: String
    public let date: CalendarDay
    /// 0 to 300 characters; tab and newline allowed, no other control characters.
    public let note: String

    /// Made by ``ExpenseValidator`` after every check has passed. `package` so that a store re-reading rows it
    /// validated before writing (in a database this program owns) need not validate each again; anything read
    /// from outside input goes through ``ExpenseValidator/validate(_:)``.
    package init(id: UUID, amount: Int64, currency: Currency, category: String, date: CalendarDay, note: String) {
        self.id = id
        self.amount = amount
        self.currency = currency
        self.category = category
        self.date = date
        self.note = note
    }

    /// The id as it is written everywhere: lower-case UUID text (`8-4-4-4-12` hex digits), the same as
    /// `id.uuidString.lowercased()` without Foundation's `sprintf` and a second pass to lower the case.
    public var idString: String { Self.lowercaseText(of: id) }

    /// Lower-case UUID text of `id`, formatted by hand (36 ASCII bytes).
    public static func lowercaseText(of id: UUID) -> String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: id.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var index = 0
                digits.withUTF8Buffer { hex in
                    for (offset, byte) in bytes.enumerated() {
                        if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                            text[index] = UInt8(ascii: "-")
                            index += 1
                        }
                        text[index] = hex[Int(byte >> 4)]
                        text[index + 1] = hex[Int(byte & 0x0f)]
                        index += 2
                    }
                }
                return index
            }
        }
    }

    /// A draft holding these values, to change some of them and validate again.
    public var draft: ExpenseDraft {
        ExpenseDraft(id: idString, amount: amount, currency: currency.code, category: category,
                     date: date.description, note: note)
    }
}
