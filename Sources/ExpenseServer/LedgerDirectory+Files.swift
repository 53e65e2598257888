import ExpenseCore
import FoundationEssentials
import SQLite
import SystemKit
#if canImport(Glibc)
import Glibc
#endif

/// The data directory's files: a ledger's file made under a temporary name and linked into place, its token file,
/// the directory itself, and the ledgers it holds.
extension LedgerDirectory {
    /// Creates ledger `name`'s file (and its token file) without opening it; returns the owner token `default`.
    /// - Throws: ``LedgerError/invalidLedgerName(_:)``, ``LedgerError/ledgerExists(_:)``, or a storage error.
    static func createFile(name: String, currency: Currency, in directory: String) throws -> String {
        guard isValid(name: name) else { throw LedgerError.invalidLedgerName(name) }
        let path = databasePath(name, in: directory)
        guard !FileManager.default.fileExists(atPath: path) else { throw LedgerError.ledgerExists(name) }
        let token = Token.generate()
        let temporary = directory + "/." + name + "-" + UUIDText.lowercased(UUID()) + ".sqlite"
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
        return token
    }

    /// Writes `token` to a temporary file (0600), fsyncs it, runs `onlyIfLinked` (which puts the ledger in
    /// place), then renames the token file into place and fsyncs the directory.
    /// (``AtomicFile``, the one atomic replacement, with `onlyIfLinked` as its step before the rename.)
    static func writeTokenFile(_ token: String, to path: String, directory: String, onlyIfLinked: () throws -> Void) throws {
        do {
            try AtomicFile.write(Array((token + "\n").utf8), to: path, beforeRename: onlyIfLinked)
        } catch let failure as AtomicFile.Failure {
            throw LedgerError.dataDirectory(path: directory, detail: failure.description)
        }
    }

    /// Whether `path` is a directory; `false` when nothing is there.
    /// - Throws: ``LedgerError/dataDirectory(path:detail:)`` when something other than a directory is there.
    static func directoryExists(_ path: String) throws -> Bool {
        do throws(PrivateDirectory.Failure) {
            return try PrivateDirectory.isDirectory(path)
        } catch {
            throw directoryError(error)
        }
    }

    /// Creates the data directory (0700) if missing (``PrivateDirectory``, the one maker).
    static func makeDirectory(_ path: String) throws {
        do throws(PrivateDirectory.Failure) {
            try PrivateDirectory.make(path)
        } catch {
            throw directoryError(error)
        }
    }

    private static func directoryError(_ failure: PrivateDirectory.Failure) -> LedgerError {
        switch failure {
        case .notADirectory(let path): LedgerError.dataDirectory(path: path, detail: "not a directory")
        case .failed(let path, let error): LedgerError.dataDirectory(path: path, detail: error.description)
        }
    }

    /// Whether `directory` holds a ledger file: read entry by entry and stopped at the first, so a daemon's start
    /// reads one entry of a directory of 100,000 ledgers, not all of them (it took 0.13 s there).
    static func hasLedger(in directory: String) throws -> Bool {
        guard let stream = opendir(directory) else {
            throw LedgerError.dataDirectory(path: directory, detail: String(cString: strerror(errno)))
        }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".sqlite"), isValid(name: String(name.dropLast(".sqlite".count))) { return true }
        }
        return false
    }

    static func ledgerNames(in directory: String) throws -> [String] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw LedgerError.dataDirectory(path: directory, detail: "\(error)")
        }
        return files.filter { $0.hasSuffix(".sqlite") }.map { String($0.dropLast(".sqlite".count)) }.filter(isValid).sorted()
    }
}
