import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One sync at a time per cache: `expense sync` and `expense sync --watch` hold an exclusive `flock` on
/// `CACHE.sync.lock` (beside the cache) for as long as they run, network waits included.
///
/// Two syncs of one cache would each say `hello` and renumber the other's queue entries in flight, so the
/// second is refused (``SyncLockError/alreadyRunning(pid:)``) rather than queued behind a watcher that may never
/// end. It is a different lock from the store's writer lock, which is only held around one transaction: an
/// `add` made while a sync runs never waits for the sync.
package final class SyncLock {
    private let lock: FileLock?

    private init(lock: FileLock?) {
        self.lock = lock
    }

    deinit { lock?.unlock() }

    /// Takes the sync lock of `store`'s cache (a cache in memory needs none).
    /// - Throws: ``SyncLockError/alreadyRunning(pid:)`` when another sync holds it, ``StoreError`` when the
    ///   lock file cannot be opened.
    package static func acquire(for store: any ExpenseStore) throws -> SyncLock {
        guard store.location != ":memory:" else { return SyncLock(lock: nil) }
        return try acquire(cachePath: store.location)
    }

    /// Takes the sync lock of `home`'s cache before the cache is opened, so a refused sync touches nothing
    /// (opening could, for one, end the running sync's bulk load).
    package static func acquire(for home: ExpenseHome) throws -> SyncLock {
        try FileSystem.ensureDirectory(home.path)
        return try acquire(cachePath: home.cachePath)
    }

    private static func acquire(cachePath: String) throws -> SyncLock {
        let lock = FileLock(path: cachePath + ".sync.lock")
        guard try lock.tryAcquire() else { throw SyncLockError.alreadyRunning(pid: holder(of: lock)) }
        // Who holds it, for the next one's message (best effort: a read-only lock file stays as it is).
        let descriptor = try lock.fileDescriptor()
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 { _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } }
        return SyncLock(lock: lock)
    }

    /// Gives the lock up before this object goes.
    package func release() { lock?.unlock() }

    private static func holder(of lock: FileLock) -> Int32? {
        guard let descriptor = try? lock.fileDescriptor(),
              let data = try? FileSystem.readAll(descriptor, path: lock.path) else { return nil }
        return Int32(String(decoding: data, as: UTF8.self).trimmingWhitespace)
    }
}

/// Why a sync did not start.
package enum SyncLockError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another `expense sync` (or `sync --watch`) is syncing this cache; its process id when known (exit 75).
    case alreadyRunning(pid: Int32?)

    /// A stable snake_case code.
    package var code: String { "sync_running" }

    package var message: String {
        switch self {
        case .alreadyRunning(let pid):
            "another `expense sync` \(pid.map { "(process \($0)) " } ?? "")is syncing this cache; "
                + "your changes are kept and it sends them, or try again when it has finished"
        }
    }

    package var description: String { "\(code): \(message)" }
}
