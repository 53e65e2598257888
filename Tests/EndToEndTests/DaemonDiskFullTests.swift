import TestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's disk fills up under a sync: the person hears `storage_full` (exit 75, the queue intact), and the
/// next sync once there is space again goes through, with no restart of the daemon.
@Suite(.serialized) struct DaemonDiskFullTests {
    /// A small tmpfs is a disk that really fills (ENOSPC reaches SQLite as SQLITE_FULL); mounting one needs root.
    static let canMount: Bool = {
        guard let scratch = try? TemporaryDirectory("expense-mount-probe") else { return false }
        defer { scratch.remove() }
        guard mount("tmpfs", scratch.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(scratch.path)
        return true
    }()

    @Test(.enabled(if: canMount || ProcessInfo.processInfo.environment["CI"] == "true",
                   "mounting a small tmpfs (a disk that fills) needs root"))
    func aFullDiskIsStorageFullWithTheQueueIntactAndSyncWorksOnceThereIsSpace() async throws {
        try await onOwnThread {
            let person = try ExpenseProcess()
            let disk = person.directory + "/disk"
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            #expect(mount("tmpfs", disk, "tmpfs", 0, "size=8m") == 0, "mount: \(String(cString: strerror(errno)))")
            defer { umount2(disk, Int32(MNT_DETACH)) }
            let data = disk + "/data"
            let daemon = try DaemonProcess.serve(data: data, scratch: person.directory, [])
            defer { _ = daemon.stop() }
            try person.setRemote(toDefaultLedgerOf: daemon, data: data)
            try person.succeed(["add", "12.50", "food", "--date", "2026-03-01"])
            #expect(try person.succeed(["sync"]) == "pushed 1, pulled 0, conflicts 0\n")

            // Fill the disk to its last byte, then queue more than the write-ahead log can take in place.
            let filler = disk + "/filler"
            Self.fill(filler)
            let note = String(repeating: "n", count: 280)
            let rows = (1...2000).map { "2026-03-\(String(format: "%02d", $0 % 28 + 1)),\($0).25,USD,rent,\(note)-\($0)" }
            let csv = person.directory + "/many.csv"
            try ("date,amount,currency,category,note\n" + rows.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
            try person.succeed(["import", csv])

            let full = try person.run(["sync"])
            #expect(full.status == 75, "\(full)")
            #expect(full.stderr.contains("storage_full") && full.stderr.contains("disk"), "\(full)")
            #expect(try person.succeed(["status"]).contains("pending:    2000"), "the queue is intact")

            // Space comes back: the same daemon takes the whole queue, and a fresh pull sees every expense once.
            try FileManager.default.removeItem(atPath: filler)
            #expect(try person.succeed(["sync"]).hasPrefix("pushed 2000, pulled 0"), "the daemon recovered by itself")
            let other = try ExpenseProcess()
            try other.setRemote(toDefaultLedgerOf: daemon, data: data)
            try other.succeed(["sync"])
            let listed = try other.succeed(["list", "--json"])
            let expenses = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [Any]
            #expect(expenses?.count == 2001, "\(listed.prefix(300))")
        }
    }

    /// Writes zeros to `path` until the file system has no byte left.
    private static func fill(_ path: String) {
        // Close-on-exec: a child another test spawns meanwhile must not keep the file, and its space, after removal.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        // The last partial block.
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 1) }) > 0 {}
    }
}
