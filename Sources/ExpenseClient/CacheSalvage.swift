import ExpenseCore
import Foundation

/// What can still be read from a damaged cache, for `expense export`: every expense whose row can be read and
/// validated, and how many rows could not be. The damaged file is never written: SQLite reads a private copy of
/// it (a read of a WAL database may write its `-shm` and `-wal`), the JSON file is only read.
package struct CacheSalvage: Sendable {
    /// The live expenses read, in the order `export` writes them (by date, then insertion order).
    package var expenses: [Expense] = []
    /// Rows known to exist that could not be read or did not validate (expenses or deletions), when the cache
    /// can tell how many there are; `nil`: some could not be read, and how many is unknown.
    package var unreadable: Int? = 0
    /// Where the damage was met, for a person (the page ranges skipped, the offset a JSON file stops making sense).
    package var detail: String = ""

    /// Whether anything stored may be missing from ``expenses``.
    package var isPartial: Bool { unreadable != 0 }

    /// Reads what it can of `home`'s cache. Never throws for damage: a file that cannot be read at all gives
    /// no expenses and an unknown number of unreadable rows.
    package static func read(_ home: ExpenseHome) -> CacheSalvage {
        switch home.backend {
        case .sqlite: return SQLiteCacheSalvage.read(home.cachePath)
        case .json: return readJSON(home.cachePath)
        }
    }

    /// The JSON cache: the entries of its `expenses` array, each complete object read on its own, up to the
    /// first that is not JSON (a file cut short, or bytes overwritten).
    static func readJSON(_ path: String) -> CacheSalvage {
        var salvage = CacheSalvage()
        guard let data = FileManager.default.contents(atPath: path) else {
            return CacheSalvage(unreadable: nil, detail: "the file cannot be read")
        }
        let bytes = [UInt8](data)
        guard let start = JSONObjectScanner.arrayStart(of: "expenses", in: bytes) else {
            return CacheSalvage(unreadable: nil, detail: "no list of expenses was found in it")
        }
        var scanner = JSONObjectScanner(bytes: bytes, offset: start)
        var bad = 0
        while let object = scanner.nextObject() {
            guard let entry = try? JSONDecoder().decode(JSONEntry.self, from: Data(object)) else {
                bad += 1
                continue
            }
            guard !entry.deleted else { continue }
            var draft = entry.fields.draft
            draft.id = .text(entry.id)
            if let expense = try? ExpenseValidator.validateStored(draft) {
                salvage.expenses.append(expense)
            } else {
                bad += 1
            }
        }
        if scanner.endedCleanly {
            salvage.unreadable = bad
        } else {
            salvage.unreadable = nil
            salvage.detail = "the file stops making sense at byte \(scanner.offset) of \(bytes.count)"
                + (bad > 0 ? "; \(bad) entries before it were not expenses" : "")
        }
        salvage.expenses.sort { $0.date < $1.date }
        return salvage
    }

    /// The fields of one expense entry of the JSON cache (the store's own format, read leniently).
    private typealias JSONEntry = ExpenseFieldMembers.Beside<EntryMembers>

    private struct EntryMembers: Codable {
        var id: String, deleted: Bool
    }
}

/// Walks the objects of one JSON array in raw bytes, each handed out whole (balanced braces outside strings),
/// so that a damaged object or a file cut short loses only what follows the damage.
struct JSONObjectScanner {
    let bytes: [UInt8]
    /// Where the scan stands.
    private(set) var offset: Int
    /// Whether the array's closing bracket was reached.
    private(set) var endedCleanly = false

    init(bytes: [UInt8], offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The offset just after the `[` that opens the array of the key `key`, or `nil`.
    static func arrayStart(of key: String, in bytes: [UInt8]) -> Int? {
        let needle = [UInt8]("\"\(key)\"".utf8)
        guard needle.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            guard bytes[start..<start + needle.count].elementsEqual(needle) else { continue }
            var index = start + needle.count
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { continue }
            index += 1
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { continue }
            return index + 1
        }
        return nil
    }

    /// The bytes of the next complete object of the array, or `nil` at its end or where it stops making sense.
    mutating func nextObject() -> ArraySlice<UInt8>? {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                endedCleanly = true
                return nil
            case UInt8(ascii: "{"):
                guard let end = Self.objectEnd(bytes, from: offset) else { return nil }
                defer { offset = end }
                return bytes[offset..<end]
            default: return nil
            }
        }
        return nil
    }

    /// The offset just after the `}` closing the object that starts at `start`, or `nil` when the bytes end first.
    private static func objectEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var depth = 0, inString = false, escaped = false
        for index in start..<bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            default: break
            }
        }
        return nil
    }
}
