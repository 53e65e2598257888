import ExpenseCore
import ExpenseProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A store kept in one JSON file, loaded whole when opened and rewritten whole (atomically: temporary file,
/// fsync, rename, fsync of the directory) on every commit. Simple and inspectable; fine for small ledgers.
///
/// Safe for many processes on one file: a commit holds the writer lock (`cache.json.lock` beside the file),
/// re-reads the file when another process replaced it since it was loaded, and only then applies its change
/// and writes; reads take in a newer file first. The loaded version is kept open, so the file's identity
/// (``FileSystem/FileIdentity``) tells for sure whether it was replaced.
package final class JSONFileExpenseStore: StateBackedStore {
    package let location: String
    var state: StoreState
    private let lock: FileLock
    /// The version of the file that ``state`` was loaded from (or last written as), kept open.
    private var loaded: (descriptor: Int32, identity: FileSystem.FileIdentity)?

    /// Opens the file at `path`, creating it (mode 0600) when it does not exist. Reading an existing file needs
    /// neither the lock nor write access (a reader sees one whole version: writers rename).
    /// - Parameter readOnly: for a command that only reads: a missing file is not created.
    /// - Throws: ``StoreError/damaged(path:reason:)`` when the file cannot be parsed,
    ///   ``StoreError/permissionDenied(path:needed:reason:)``, ``StoreError/unreadable(path:reason:)``.
    package init(path: String, readOnly: Bool = false) throws {
        location = path
        lock = FileLock(path: path + ".lock")
        state = StoreState()
        if FileManager.default.fileExists(atPath: path) {
            try load()
        } else if readOnly {
            state = StoreState.fresh()
        } else {
            try lock.withExclusive {
                if FileManager.default.fileExists(atPath: path) {
                    try load()
                } else {
                    state = StoreState.fresh()
                    try persist(state)
                }
            }
        }
    }

    deinit {
        if let loaded { close(loaded.descriptor) }
    }

    /// Writes `newState` to the file: temporary file, fsync, rename, fsync of the directory.
    func persist(_ newState: StoreState) throws {
        try save(newState)
        // Under the writer lock: the file now at `location` is the one just written.
        try remember(open(location, O_RDONLY | O_CLOEXEC))
    }

    func reload() throws {
        // A file removed meanwhile keeps the state as it was; the next write makes the file again.
        guard let now = FileSystem.identity(of: location), now != loaded?.identity else { return }
        try load()
    }

    func exclusively<T>(_ body: () throws -> T) throws -> T { try lock.withExclusive(body) }

    /// Reads and decodes the file now at ``location`` and keeps it open as the loaded version.
    private func load() throws {
        let descriptor = open(location, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StoreError.failure(errno, path: location, needed: "to read it", otherwise: StoreError.unreadable)
        }
        do {
            state = try Self.decode(try FileSystem.readAll(descriptor, path: location), path: location)
        } catch {
            close(descriptor)
            throw error
        }
        try remember(descriptor)
    }

    private func remember(_ descriptor: Int32) throws {
        guard descriptor >= 0, let identity = FileSystem.identity(of: descriptor) else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw StoreError.unreadable(path: location, reason: reason)
        }
        if let loaded { close(loaded.descriptor) }
        loaded = (descriptor, identity)
    }

    // MARK: - The file format

    /// Format 2 adds the server copies, the queue's states and positions, and conflicts; format 1 files
    /// (whose queue held only unsent entries) are read and rewritten as format 2 on the next write.
    private struct File: Codable {
        var format: Int
        var nextOrder: Int64
        var expenses: [Entry]
        var pending: [MutationEntry]
        var meta: [String: String]
        var nextPosition: Int64?
        var serverCopies: [Entry]?
        var conflicts: [ConflictEntry]?
    }

    /// A record: its own members beside its expense's fields (``ExpenseFieldMembers``).
    private typealias Entry = ExpenseFieldMembers.Beside<RecordMembers>

    private struct RecordMembers: Codable {
        var id: String, baseVersion: Int64, deleted: Bool, order: Int64
        var seq: Int64?
    }

    /// A queued change: its own members beside the fields it sends (``ExpenseFieldMembers``).
    private typealias MutationEntry = ExpenseFieldMembers.Beside<MutationMembers>

    private struct MutationMembers: Codable {
        var mutationId: Int64?, type: String, id: String, baseVersion: Int64
        var position: Int64?, state: String?
        var rejectReason: String?, rejectField: String?, rejectMessage: String?
        /// A materialised occurrence's create (``PendingMutation/ifAbsent``); absent: false.
        var ifAbsent: Bool?
    }

    private static func entry(_ expense: Expense, version: Int64, deleted: Bool, order: Int64, seq: Int64? = nil) -> Entry {
        Entry(RecordMembers(id: expense.idString, baseVersion: version, deleted: deleted, order: order, seq: seq),
              fields: expense.draft, omittingEmpty: true)
    }

    private static func mutationEntry(_ mutation: PendingMutation) -> MutationEntry {
        MutationEntry(MutationMembers(mutationId: mutation.mutationId, type: mutation.type.rawValue,
                                      id: UUIDText.lowercased(mutation.id), baseVersion: mutation.baseVersion,
                                      position: mutation.position, state: mutation.state.rawValue,
                                      rejectReason: mutation.rejection?.reason, rejectField: mutation.rejection?.field,
                                      rejectMessage: mutation.rejection?.message, ifAbsent: mutation.ifAbsent ? true : nil),
                      fields: mutation.fields)
    }

    private struct ConflictEntry: Codable {
        var id: String, mine: String, mineBaseVersion: Int64, mineFields: ExpenseFieldMembers, theirs: Entry
    }

    private func save(_ state: StoreState) throws {
        let data: Data
        do { data = try Self.encode(state) } catch {
            throw StoreError.writeFailed(path: location, reason: "cannot encode: \(error)")
        }
        try FileSystem.writeAtomically(data, to: location)
    }

    /// The file's bytes for `state` (format 2, sorted keys). Internal rather than private for the `json-cache`
    /// fuzz target (Scripts/fuzz), which writes back what ``decode(_:path:)`` read without touching a disk.
    /// - Throws: the encoder's error.
    static func encode(_ state: StoreState) throws -> Data {
        let file = File(
            format: 2, nextOrder: state.nextOrder,
            expenses: state.rows.values.sorted { $0.order < $1.order }.map { row in
                Self.entry(row.record.expense, version: row.record.baseVersion, deleted: row.record.deleted, order: row.order)
            },
            pending: state.pending.map(Self.mutationEntry),
            meta: Dictionary(uniqueKeysWithValues: state.meta.map { ($0.key.rawValue, $0.value) }),
            nextPosition: state.nextPosition,
            serverCopies: state.serverCopies.values.sorted { $0.seq < $1.seq }.map {
                Self.entry($0.expense, version: $0.version, deleted: $0.deleted, order: 0, seq: $0.seq)
            },
            conflicts: state.conflicts.map {
                ConflictEntry(id: UUIDText.lowercased($0.id), mine: $0.mine.rawValue, mineBaseVersion: $0.mineBaseVersion,
                              mineFields: ExpenseFieldMembers($0.mineFields),
                              theirs: Self.entry($0.theirs.expense, version: $0.theirs.version, deleted: $0.theirs.deleted,
                                                 order: 0, seq: $0.theirs.seq))
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(file)
    }

    /// The state a file's bytes hold. Internal rather than private for the `json-cache` fuzz target (Scripts/fuzz).
    /// - Throws: ``StoreError/damaged(path:reason:)``, or ``StoreError/unreadable(path:reason:)`` for a newer format.
    static func decode(_ data: Data, path: String) throws -> StoreState {
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw StoreError.damaged(path: path, reason: "not the expected JSON")
        }
        guard file.format == 1 || file.format == 2 else {
            throw StoreError.unreadable(path: path, reason: "format \(file.format) is newer than this program understands")
        }
        func expense(_ entry: Entry) throws -> Expense {
            do {
                var draft = entry.fields.draft
                draft.id = .text(entry.id)
                return try ExpenseValidator.validateStored(draft)
            } catch {
                throw StoreError.damaged(path: path, reason: "expense \(entry.id): \(error)")
            }
        }
        // The next order and position are taken with `+= 1` (StateTransaction): a counter at Int64.max would trap
        // on the next write, so a file leaving no room is damaged (no writer of ours comes near it).
        guard file.nextOrder < Int64.max else {
            throw StoreError.damaged(path: path, reason: "nextOrder \(file.nextOrder) leaves no next order")
        }
        var state = StoreState()
        state.nextOrder = file.nextOrder
        for entry in file.expenses {
            let expense = try expense(entry)
            state.put(StoreState.Row(
                record: LocalRecord(expense: expense, baseVersion: entry.baseVersion, deleted: entry.deleted), order: entry.order))
        }
        for entry in file.serverCopies ?? [] {
            let expense = try expense(entry)
            state.serverCopies[expense.id] = Record(expense: expense, version: entry.baseVersion, seq: entry.seq ?? 0,
                                                    deleted: entry.deleted)
        }
        var position: Int64 = 0
        for entry in file.pending {
            guard let type = MutationType(rawValue: entry.type), let id = UUIDText.parse(entry.id),
                  let mutationState = PendingMutation.State(rawValue: entry.state ?? "unsent") else {
                throw StoreError.damaged(path: path, reason: "pending mutation of \(entry.id)")
            }
            position = entry.position ?? (position + 1)
            // Below Int64.max, so the next position (`position + 1` here and below) exists.
            guard position < Int64.max else {
                throw StoreError.damaged(path: path, reason: "pending mutation of \(entry.id): position \(position) leaves no next position")
            }
            // Format 1 numbered entries when they were queued, but never sent them: they are unsent.
            let rejection = entry.rejectReason.map {
                MutationRejection(reason: $0, field: entry.rejectField, message: entry.rejectMessage ?? $0)
            }
            state.pending.append(PendingMutation(
                position: position, mutationId: file.format == 1 ? nil : entry.mutationId, state: mutationState,
                type: type, id: id, baseVersion: entry.baseVersion,
                fields: entry.fields.draft,
                rejection: rejection, ifAbsent: entry.ifAbsent ?? false))
        }
        state.nextPosition = max(file.nextPosition ?? 1, position + 1)
        guard state.nextPosition < Int64.max else {
            throw StoreError.damaged(path: path, reason: "nextPosition \(state.nextPosition) leaves no next position")
        }
        for entry in file.conflicts ?? [] {
            guard let id = UUIDText.parse(entry.id), let mine = MutationType(rawValue: entry.mine) else {
                throw StoreError.damaged(path: path, reason: "conflict \(entry.id)")
            }
            state.conflicts.append(Conflict(
                id: id, mine: mine, mineBaseVersion: entry.mineBaseVersion, mineFields: entry.mineFields.draft,
                theirs: Record(expense: try expense(entry.theirs), version: entry.theirs.baseVersion,
                               seq: entry.theirs.seq ?? 0, deleted: entry.theirs.deleted)))
        }
        for (key, value) in file.meta {
            if let key = StoreMetaKey(rawValue: key) { state.meta[key] = value }
        }
        return state
    }
}
