import ExpenseCore
import Foundation
import SQLite
import Synchronization

/// The data directory: one SQLite file per ledger (`NAME.sqlite`) and its token file (`NAME.token`, 0600).
///
/// Several processes may use one directory at once (`expensed ledger add` while the daemon runs): a new
/// ledger is built under a temporary name and linked into place atomically (an existing name is never
/// overwritten), and the daemon opens a ledger that appeared after it started the first time someone asks
/// for it by name. SQLite's own locking guards each file. Only one daemon serves a directory at a time, and a
/// restore replaces a ledger only while none does (``DataDirectoryLock``).
public final class LedgerDirectory: Sendable {
    /// The directory holding the ledgers.
    public let dataDirectory: String
    /// The token file written at first start for the `default` ledger, or `nil` when none was created.
    public let createdDefaultTokenPath: String?

    private struct Entry {
        var ledger: Ledger
        var token: [UInt8]?
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Compared against when the ledger is unknown, so that case takes the same time as a wrong token.
    private let decoyToken = Array(Token.generate().utf8)

    /// What opening a data directory may create: `expensed` creates only what it was asked for.
    public enum Creation: Sendable {
        /// Nothing: a missing directory is ``LedgerError/dataDirectory(path:detail:)`` (`ledger list`, so a
        /// mistyped `--data` does not become a new directory).
        case nothing
        /// The directory (0700) if missing, but no ledger (`ledger add NAME` creates only NAME).
        case directory
        /// Nothing yet, not even a read: ``openDeferred(defaultCurrency:)`` opens (and creates) everything
        /// later (`serve`, once it knows it can listen and holds the directory's lock).
        case later
        /// The directory if missing and, with no ledger at all, `default` in this currency (its token in
        /// `DIR/default.token`).
        case defaultLedger(Currency)
    }

    /// Opens every ledger in `dataDirectory`, creating the directory (0700) if needed, and on first start
    /// with no ledger at all creates `default` in `defaultCurrency` and writes `DIR/default.token` (0600).
    /// - Throws: as ``init(dataDirectory:creating:)``.
    public convenience init(dataDirectory: String, defaultCurrency: Currency) throws {
        try self.init(dataDirectory: dataDirectory, creating: .defaultLedger(defaultCurrency))
    }

    /// Opens every ledger in `dataDirectory`, creating only what `creating` allows.
    /// - Throws: ``LedgerError/damagedDatabase(path:report:)`` naming the first damaged file (it is never
    ///   served), ``LedgerError/dataDirectory(path:detail:)`` (also for a missing directory with `.nothing`),
    ///   or a storage error.
    public init(dataDirectory: String, creating: Creation) throws {
        self.dataDirectory = dataDirectory
        var found: [String: Entry] = [:]
        switch creating {
        case .later:
            createdDefaultTokenPath = nil
            return
        case .nothing:
            guard try Self.directoryExists(dataDirectory) else {
                throw LedgerError.dataDirectory(path: dataDirectory, detail: "no such directory (nothing was created)")
            }
        case .directory, .defaultLedger:
            try Self.makeDirectory(dataDirectory)
        }
        for name in try Self.ledgerNames(in: dataDirectory) {
            found[name] = try Self.open(name: name, in: dataDirectory)
        }
        if case .defaultLedger(let currency) = creating, found.isEmpty {
            found["default"] = try Self.create(name: "default", currency: currency, in: dataDirectory).entry
            createdDefaultTokenPath = dataDirectory + "/default.token"
        } else {
            createdDefaultTokenPath = nil
        }
        entries.withLock { $0 = found }
    }

    /// The work a `.later` directory deferred: creates the directory (0700) if missing, opens every ledger in
    /// it, and with none at all creates `default` in `defaultCurrency`.
    /// - Returns: the new token file's path (`DIR/default.token`), or `nil` when there were ledgers already.
    /// - Throws: as ``init(dataDirectory:creating:)``.
    public func openDeferred(defaultCurrency: Currency) throws -> String? {
        try Self.makeDirectory(dataDirectory)
        for name in try Self.ledgerNames(in: dataDirectory) { _ = try openAppeared(name) }
        guard entries.withLock({ $0.isEmpty }) else { return nil }
        let entry: Entry
        do {
            entry = try Self.create(name: "default", currency: defaultCurrency, in: dataDirectory).entry
        } catch LedgerError.ledgerExists {  // made by `expensed ledger add default` meanwhile
            _ = try openAppeared("default")
            return nil
        }
        entries.withLock { $0["default"] = $0["default"] ?? entry }
        return dataDirectory + "/default.token"
    }

    /// The ledger `ledger` when `token` is its token; `nil` otherwise. The comparison takes the same time
    /// whatever the token, and for an unknown ledger.
    public func authenticate(ledger name: String, token: String) -> Ledger? {
        var entry = entries.withLock { $0[name] }
        if entry == nil, Self.isValid(name: name), FileManager.default.fileExists(atPath: Self.databasePath(name, in: dataDirectory)) {
            entry = try? openAppeared(name)  // created by `expensed ledger add` since the daemon started
        }
        let matches = Token.matches(token, expected: entry?.token ?? decoyToken)
        guard matches, let entry, entry.token != nil else { return nil }
        return entry.ledger
    }

    /// Creates a ledger and returns its new token (also written to `DIR/NAME.token`, mode 0600).
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``, or a storage error.
    public func addLedger(name: String, currency: Currency) throws -> String {
        guard entries.withLock({ $0[name] }) == nil else { throw LedgerError.ledgerExists(name) }
        let (token, entry) = try Self.create(name: name, currency: currency, in: dataDirectory)
        entries.withLock { $0[name] = entry }
        return token
    }

    /// The open ledgers (for the compaction schedule, `LedgerDirectory+Compact.swift`).
    func openLedgers() -> [Ledger] { entries.withLock { $0.values.map(\.ledger) } }

    /// Every ledger, sorted by name.
    public func ledgers() -> [(name: String, currency: Currency)] {
        entries.withLock { $0.values.map { ($0.ledger.name, $0.ledger.currency) } }.sorted { $0.name < $1.name }
    }

    /// Copies a ledger consistently into a new file with SQLite's online backup API, while the daemon may be
    /// writing to it.
    /// - Throws: ``LedgerError/unknownLedger(_:)``, ``LedgerError/backupTargetExists(_:)``, or a storage error.
    public func backup(ledger name: String, to path: String) throws {
        try Self.backup(dataDirectory: dataDirectory, ledger: name, to: path)
    }

    /// The same backup without opening the whole directory (for `expensed backup` next to a running daemon).
    public static func backup(dataDirectory: String, ledger name: String, to path: String) throws {
        let source = databasePath(name, in: dataDirectory)
        guard isValid(name: name), FileManager.default.fileExists(atPath: source) else { throw LedgerError.unknownLedger(name) }
        // Created 0600 (it holds the ledger's token and records) and exclusively before SQLite opens it: an
        // existing file is never overwritten, even one that appears meanwhile.
        let descriptor = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw LedgerError.backupTargetExists(path) }
            throw LedgerError.storageFailed("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        do {
            try SQLiteConnection(path: source, mode: .readOnly).backup(to: path)
            // The copy's history ends here: once restored it is another history than the ledger's (Protocol.md §5.7).
            try SQLiteLedgerStore.startNewEpoch(connection: SQLiteConnection(path: path, mode: .readWrite))
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            throw LedgerError.storage(error)
        }
    }

    /// Commits what is queued in every ledger and closes them.
    public func close() async {
        let ledgers = entries.withLock { $0.values.map(\.ledger) }
        for ledger in ledgers { await ledger.close() }
    }

    // MARK: - Files

    /// 1 to 64 of `a-z`, `0-9`, `-`, `_`, starting with a letter or a digit (so a name is always a safe file name).
    package static func isValid(name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (!first && (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")))
        }
        return bytes.enumerated().allSatisfy { allowed($0.element, first: $0.offset == 0) }
    }

    static func databasePath(_ name: String, in directory: String) -> String { directory + "/" + name + ".sqlite" }

    private func openAppeared(_ name: String) throws -> Entry {
        let entry = try Self.open(name: name, in: dataDirectory)
        return entries.withLock { entries in
            if let existing = entries[name] { return existing }  // another caller opened it first
            entries[name] = entry
            return entry
        }
    }

    private static func open(name: String, in directory: String) throws -> Entry {
        let path = databasePath(name, in: directory)
        do {
            let store = try SQLiteLedgerStore(path: path, name: name, currency: .usd, verify: true)
            let token = store.token.map { Array($0.utf8) }
            let ledger = Ledger(name: store.name, currency: store.currency, store: store, identity: store.identity)
            return Entry(ledger: ledger, token: token)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.damagedDatabase(path: path, report: "\(error)")
        }
    }

    private static func create(name: String, currency: Currency, in directory: String) throws -> (token: String, entry: Entry) {
        guard isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        let path = databasePath(name, in: directory)
        guard !FileManager.default.fileExists(atPath: path) else { throw LedgerError.ledgerExists(name) }
        let token = Token.generate()
        let temporary = directory + "/." + name + "-" + UUID().uuidString.lowercased() + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) } }
        do {
            // Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database's mode.
            let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno))) }
            Glibc.close(descriptor)
            do {
                _ = try SQLiteLedgerStore(path: temporary, name: name, currency: currency, token: token)
            }  // closed here: the WAL is checkpointed into the file
            try writeTokenFile(token, to: directory + "/" + name + ".token", directory: directory, onlyIfLinked: {
                // link(2) fails when the name exists: an existing ledger is never replaced.
                guard link(temporary, path) == 0 else {
                    throw errno == EEXIST ? LedgerError.ledgerExists(name)
                                          : LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno)))
                }
            })
        }
        return (token, try open(name: name, in: directory))
    }

    /// Writes `token` to a temporary file (0600), fsyncs it, runs `onlyIfLinked` (which puts the ledger in
    /// place), then renames the token file into place and fsyncs the directory.
    static func writeTokenFile(_ token: String, to path: String, directory: String, onlyIfLinked: () throws -> Void) throws {
        let temporary = path + ".tmp-" + UUID().uuidString.lowercased()
        defer { unlink(temporary) }
        let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno))) }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        Glibc.close(descriptor)
        guard written == bytes.count, synced == 0 else {
            throw LedgerError.dataDirectory(path: directory, detail: "cannot write \(temporary)")
        }
        try onlyIfLinked()
        guard rename(temporary, path) == 0 else {
            throw LedgerError.dataDirectory(path: directory, detail: "cannot rename the token file: \(String(cString: strerror(errno)))")
        }
        let directoryDescriptor = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            Glibc.close(directoryDescriptor)
        }
    }

    /// Whether `path` is a directory; `false` when nothing is there.
    /// - Throws: ``LedgerError/dataDirectory(path:detail:)`` when something other than a directory is there.
    private static func directoryExists(_ path: String) throws -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        guard isDirectory.boolValue else { throw LedgerError.dataDirectory(path: path, detail: "not a directory") }
        return true
    }

    private static func makeDirectory(_ path: String) throws {
        if try directoryExists(path) { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw LedgerError.dataDirectory(path: path, detail: "\(error)")
        }
    }

    private static func ledgerNames(in directory: String) throws -> [String] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw LedgerError.dataDirectory(path: directory, detail: "\(error)")
        }
        return files.filter { $0.hasSuffix(".sqlite") }.map { String($0.dropLast(".sqlite".count)) }.filter(isValid).sorted()
    }
}
