import ExpenseCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Where a field sits in ``ExpenseFields/all``, found by its name (as text or as a member key's bytes) or by the
/// field: the slots of ``MutationFields`` and the member lookup of the push decoder.
extension ExpenseFields {
    /// The member names a `fields` object may hold.
    public static let names: [String] = all.map(\.name)

    /// The index in ``all`` of the field named `name`.
    ///
    /// Compared with `==` one by one: a `switch` over string literals goes through the standard library's
    /// string-switch table, which cost a mutation's decode about 2k instructions.
    static func slot(named name: String) -> Int? {
        for index in all.indices where all[index].name == name { return index }
        return nil
    }

    /// The index in ``all`` of the field whose name is the bytes `key` (a member key read from a line).
    static func slot(named key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = key.baseAddress else { return nil }
        for index in all.indices {
            let found = all[index].utf8.withUnsafeBufferPointer { name in
                guard name.count == key.count, let nameBase = name.baseAddress else { return false }
                return memcmp(base, nameBase, key.count) == 0
            }
            if found { return index }
        }
        return nil
    }

    /// The index in ``all`` of `field`; `nil` for `id`, which is never among the fields sent.
    static func slot(of field: ExpenseField) -> Int? {
        all.firstIndex { $0.field == field }
    }
}
