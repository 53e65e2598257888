import ExpenseCore
import ExpenseProtocol
import Foundation

/// The ids of the rows the latest journaled import created (``StoreMetaKey/lastImport``), for `expense undo
/// --last`. **Choice:** an import is ONE journal entry (``JournalEntry/rows``), not one per row: a
/// 100,000-row import would otherwise push every other command out of the 50-entry journal and could not be
/// undone as a whole anyway. Its ids live in their own meta value, written once with the import, so each later
/// command's journal write stays small; only the latest import keeps them (the next import replaces them, and
/// they go when the import is undone or its entry leaves the journal), so at most one import's ids are kept.
struct ImportJournal: Equatable {
    /// The journal entry's `time`, `id` (the first row) and `rows`, which tie these ids to it.
    var time: Int64
    var ids: [UUID]

    /// Whether these are the ids of `entry`.
    func belongs(to entry: JournalEntry) -> Bool {
        entry.command == "import" && entry.time == time && entry.rows == ids.count && ids.first == entry.id
    }

    func encode() -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("ids")
        writer.beginArray()
        for id in ids { writer.uuid(id) }
        writer.endArray()
        writer.member("time", time)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    init(time: Int64, ids: [UUID]) {
        self.time = time
        self.ids = ids
    }

    init?(_ text: String?) {
        guard let text, let members = (try? JSONParser.parse(Array(text.utf8)))?.objectValue,
              let time = members["time"]?.int64Value, let array = members["ids"]?.arrayValue else { return nil }
        let ids = array.compactMap { $0.stringValue.flatMap(UUIDText.parse) }
        guard ids.count == array.count else { return nil }
        self.init(time: time, ids: ids)
    }
}
