import Dispatch
import ExpenseCore
import ExpenseTransport
import FoundationEssentials
import SQLite
import Synchronization
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The data directory: one SQLite file per ledger (`NAME.sqlite`, holding its tokens' SHA-256 hashes) and the
/// token file `ledger add` wrote (`NAME.token`, 0600: the ledger's first token, `default`, an owner's).
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

    /// The ledgers open now: each opened when first asked for, closed again when unused (``closeUnusedLedgers(idle:maximum:)``).
    let opened = OpenLedgers()
    /// Compared against when the ledger is unknown, so that case takes the time of a wrong token.
    private let decoyDigest = Token.digest(Token.generate())
    /// Whether the token poll runs (``watchTokens(every:)``); cleared by ``close()``.
    private let tokenWatch = TokenWatch()
    /// The ledgers of a compaction round that were not open when it began (`LedgerDirectory+Compact.swift`).
    let closedCompactions = ClosedLedgerCompactions()
    /// What this process learnt of the ledgers' files (a restore replaces a file only while no daemon serves the
    /// directory, so it stays true): those that failed to open as damaged (never tried again), those whose
    /// structure was checked already (not checked again when reopened); and where failures to open are told.
    private let fileChecks = Mutex<(damaged: Set<String>, verified: Set<String>)>(([], []))
    /// Where the daemon's lines go (``openDeferred(defaultCurrency:log:)``); each ledger opened here logs there too.
    private let log = Mutex(ServerLog.none)
    /// What a test injects into every store opened here (``StoreFaults``); `nil` in the daemon.
    private let faults: StoreFaults?

    /// What opening a data directory may create: `expensed` creates only what it was asked for.
    public enum Creation: Sendable {
        /// Nothing: a missing directory is ``LedgerError/dataDirectory(path:detail:)`` (`ledger list`, so a
        /// mistyped `--data` does not become a new directory).
        case nothing
        /// The directory (0700) if missing, but no ledger (`ledger add NAME` creates only NAME).
        case directory
        /// Nothing yet, not even a read: ``openDeferred(defaultCurrency:)`` creates what is missing later
        /// (`serve`, once it knows it can listen and holds the directory's lock), and each ledger is opened when
        /// first asked for.
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

    /// ``init(dataDirectory:defaultCurrency:)`` whose stores fail where a test says (`faults`).
    package convenience init(dataDirectory: String, defaultCurrency: Currency, faults: StoreFaults) throws {
        try self.init(dataDirectory: dataDirectory, creating: .defaultLedger(defaultCurrency), faults: faults)
    }

    /// Opens every ledger in `dataDirectory`, creating only what `creating` allows.
    /// - Throws: ``LedgerError/damagedDatabase(path:report:)`` naming the first damaged file (it is never
    ///   served), ``LedgerError/dataDirectory(path:detail:)`` (also for a missing directory with `.nothing`),
    ///   or a storage error.
    public convenience init(dataDirectory: String, creating: Creation) throws {
        try self.init(dataDirectory: dataDirectory, creating: creating, faults: nil)
    }

    /// ``init(dataDirectory:creating:)`` whose stores fail where a test says (`faults`).
    package init(dataDirectory: String, creating: Creation, faults: StoreFaults?) throws {
        self.dataDirectory = dataDirectory
        self.faults = faults
        var found: [String: Ledger] = [:]
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
            found[name] = try Self.open(name: name, in: dataDirectory, faults: faults)
        }
        if case .defaultLedger(let currency) = creating, found.isEmpty {
            found["default"] = try Self.create(name: "default", currency: currency, in: dataDirectory, faults: faults).ledger
            createdDefaultTokenPath = dataDirectory + "/default.token"
        } else {
            createdDefaultTokenPath = nil
        }
        for (name, ledger) in found { _ = opened.insert(ledger, as: name) }
    }

    /// The work a `.later` directory deferred: creates the directory (0700) if missing and, with no ledger at
    /// all, creates `default` in `defaultCurrency`. No other ledger is opened: each is opened (and its file
    /// checked) when a request first names it, so the daemon starts in the same time and memory whatever the
    /// number of ledgers on disk. `log` hears of a ledger whose file is damaged when it is asked for (it is not
    /// served; the others are).
    /// - Returns: the new token file's path (`DIR/default.token`), or `nil` when there were ledgers already.
    /// - Throws: as ``init(dataDirectory:creating:)``.
    public func openDeferred(defaultCurrency: Currency, log: ServerLog = .none) throws -> String? {
        try Self.makeDirectory(dataDirectory)
        self.log.withLock { $0 = log }
        guard opened.isEmpty, try !Self.hasLedger(in: dataDirectory) else { return nil }
        let ledger: Ledger
        do {
            ledger = try Self.create(name: "default", currency: defaultCurrency, in: dataDirectory, log: log, faults: faults).ledger
        } catch LedgerError.ledgerExists {  // made by `expensed ledger add default` meanwhile
            _ = try openAppeared("default")
            return nil
        }
        _ = opened.insert(ledger, as: "default")
        return dataDirectory + "/default.token"
    }

    /// Checks `token` against the tokens of ledger `name` on that ledger's thread (after taking in any token
    /// change made by another process, so a token revoked a moment ago is refused and one added a moment ago
    /// works) and calls `completion` with the ledger and the token's credential, or `nil`. An unknown ledger
    /// costs the same hash and comparison as a wrong token, off the caller's thread.
    /// It returns at once: a ledger created since the daemon started is opened (integrity check and index load,
    /// about a second per million records) on a Dispatch worker, never on the caller's (the loop's) thread.
    public func authenticate(ledger name: String, token: String, completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void) {
        guard !needsOpening(name) else {
            DispatchQueue.global().async { self.authenticateOpen(ledger: name, token: token, completion: completion) }
            return
        }
        authenticateOpen(ledger: name, token: token, completion: completion)
    }

    private func authenticateOpen(ledger name: String, token: String, completion: @escaping @Sendable (Result<Authentication?, LedgerError>) -> Void) {
        // Pinned while the token is checked, so it is not closed for being unused before the connection holds it.
        var found = opened[name]
        if let ledger = found, !opened.pin(name, ledger) { found = nil }  // closed meanwhile
        if found == nil, needsOpening(name), LoopThread.isCurrent {
            DispatchQueue.global().async { self.authenticateOpen(ledger: name, token: token, completion: completion) }
            return
        }
        if found == nil { found = ledger(named: name, pinned: true) }
        guard let ledger = found else {
            let decoy = decoyDigest
            DispatchQueue.global().async {
                _ = Token.sameDigest(Token.digest(token), decoy)
                completion(.success(nil))
            }
            return
        }
        ledger.authenticate(token: token) { credential in
            self.opened.unpin(name)
            completion(credential.map { $0.map { Authentication(ledger: ledger, credential: $0) } })
        }
    }

    /// The ledger `ledger` when `token` is one of its tokens as last read (no look at the file, no credential
    /// registered: for tests and tools in this process; the daemon uses ``authenticate(ledger:token:completion:)``).
    public func authenticate(ledger name: String, token: String) -> Ledger? {
        let ledger = ledger(named: name)
        let digest = Token.digest(token)
        guard let ledger else {
            _ = Token.sameDigest(digest, decoyDigest)
            return nil
        }
        return ledger.access.match(digest) == nil ? nil : ledger
    }

    /// The open ledger named `name`, opening it when it is on disk and not open yet. A file that fails to open
    /// as damaged is logged and refused from then on (each try would check the whole file again); any other
    /// failure (out of descriptors, say) is logged and tried again next time.
    func ledger(named name: String) -> Ledger? { ledger(named: name, pinned: false) }

    /// ``ledger(named:)``, with `pinned` the ledger returned pinned (``OpenLedgers/pin(_:_:)``) when it had to be opened.
    private func ledger(named name: String, pinned: Bool) -> Ledger? {
        if let ledger = opened[name], !pinned || opened.pin(name, ledger) { return ledger }
        guard Self.isValid(name: name), FileManager.default.fileExists(atPath: Self.databasePath(name, in: dataDirectory)),
              !fileChecks.withLock({ $0.damaged.contains(name) }) else {
            return nil
        }
        do {
            return try openAppeared(name, pinned: pinned)
        } catch {
            if case LedgerError.damagedDatabase = error { fileChecks.withLock { _ = $0.damaged.insert(name) } }
            log.withLock { $0 }(.warning, "ledger \(DisplayText.quoted(name)) is not served: \(error)")
            return nil
        }
    }

    /// Closes ledgers nobody uses (`expensed serve --idle-ledger-close`, `--max-open-ledgers`): each open ledger
    /// unused for `idle` (no connection holds one of its tokens, no `hello` is being checked), and past `maximum`
    /// open the least recently used unused ones, looked at every `idle / 4` (at most every 30 s). A ledger in use
    /// is never closed, so more than `maximum` may be open while they all are. A closed ledger commits what it
    /// has queued and is opened again when next asked for.
    public func closeUnusedLedgers(idle: Duration?, maximum: Int?, log: ServerLog = .none) {
        opened.log(to: log)
        opened.limits = OpenLedgers.Limits(idle: idle, maximum: maximum)
        if let idle { opened.closeUnused(every: OpenLedgers.sweepInterval(idle: idle)) }
    }

    /// Every `interval`, has each open ledger take in token changes made by another process (`expensed token
    /// revoke` beside the daemon: the revoked token's idle connections are closed within `interval`) and write
    /// its tokens' last uses. Runs on Dispatch timers until ``close()``.
    public func watchTokens(every interval: Duration) {
        tokenWatch.start(every: interval) { [weak self] in self?.openLedgersForTokenCheck() ?? [] }
    }

    private func openLedgersForTokenCheck() -> [Ledger] { opened.all }

    /// One round of ``watchTokens(every:)`` now; `completion` runs once every open ledger has done it.
    package func checkTokens(completion: @escaping @Sendable () -> Void = {}) {
        TokenWatch.check(openLedgersForTokenCheck(), completion: completion)
    }

    /// Whether `name` is a ledger on disk not open yet (opening it may block).
    func needsOpening(_ name: String) -> Bool {
        opened[name] == nil && Self.isValid(name: name)
            && FileManager.default.fileExists(atPath: Self.databasePath(name, in: dataDirectory))
    }

    /// Creates a ledger and returns its new token, the owner token `default` (also written to `DIR/NAME.token`,
    /// mode 0600: the only copy; the ledger keeps its SHA-256).
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``, or a storage error.
    public func addLedger(name: String, currency: Currency) throws -> String {
        guard opened[name] == nil else { throw LedgerError.ledgerExists(name) }
        let (token, ledger) = try Self.create(name: name, currency: currency, in: dataDirectory, faults: faults)
        _ = opened.insert(ledger, as: name)
        return token
    }

    /// The open ledgers (for the compaction schedule, `LedgerDirectory+Compact.swift`).
    func openLedgers() -> [Ledger] { opened.all }

    /// Every open ledger, sorted by name (a `.later` directory opens each when first asked for).
    public func ledgers() -> [(name: String, currency: Currency)] {
        opened.all.map { ($0.name, $0.currency) }.sorted { $0.name < $1.name }
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
        try createBackupFile(path)
        do {
            try SQLiteConnection(path: source, mode: .readOnly).backup(to: path)
            // The copy's history ends here: once restored it is another history than the ledger's (Protocol.md §5.7).
            try SQLiteLedgerStore.startNewEpoch(connection: SQLiteConnection(path: path, mode: .readWrite))
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            throw LedgerError.storage(error)
        }
    }

    /// Creates the empty backup file `path`, 0600 (it holds the ledger's records and its tokens' hashes) and
    /// exclusively before SQLite opens it: an existing file is never overwritten, even one that appears meanwhile.
    /// - Throws: ``LedgerError/backupTargetExists(_:)``, or ``LedgerError/storageFailed(_:)``.
    static func createBackupFile(_ path: String) throws {
        let descriptor = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { throw LedgerError.backupTargetExists(path) }
            throw LedgerError.storageFailed("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
    }

    /// Commits what is queued in every ledger and closes them.
    public func close() async {
        tokenWatch.stop()
        await opened.close()
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

    private func openAppeared(_ name: String, pinned: Bool = false) throws -> Ledger {
        LoopThread.assertNotCurrent()  // opening reads the whole file: never on the network loop
        opened.waitUntilClosed(name)  // closed for being unused a moment ago: its last commit is in the file first
        // Its file's structure is checked the first time this process opens it: after a close for being unused, the
        // file is the one this process wrote and checked (a restore replaces a file only while no daemon runs).
        let verify = !fileChecks.withLock { $0.verified.contains(name) }
        let ledger = try Self.open(name: name, in: dataDirectory, verify: verify, log: log.withLock { $0 }, faults: faults)
        if verify { fileChecks.withLock { _ = $0.verified.insert(name) } }
        // A compaction round that has not reached this ledger yet: queued first on its thread, before any request.
        if let round = closedCompactions.opened(name) {
            Self.compact([ledger], before: round.cutoff, keepDays: round.keepDays, done: round.done)
        }
        return opened.insert(ledger, as: name, pinned: pinned)
    }

    private static func open(name: String, in directory: String, verify: Bool = true, log: ServerLog = .none,
                             faults: StoreFaults?) throws -> Ledger {
        let path = databasePath(name, in: directory)
        do {
            let store = try SQLiteLedgerStore(path: path, name: name, currency: .usd, verify: verify, faults: faults)
            store.checkpointInBackground(name: name)
            return Ledger(name: store.name, currency: store.currency, store: store, identity: store.identity, log: log)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError.damagedDatabase(path: path, report: "\(error)")
        }
    }

    private static func create(name: String, currency: Currency, in directory: String, log: ServerLog = .none,
                               faults: StoreFaults?) throws -> (token: String, ledger: Ledger) {
        let token = try createFile(name: name, currency: currency, in: directory)
        return (token, try open(name: name, in: directory, log: log, faults: faults))
    }
}
