import Foundation

/// The test process's resident memory, which a few tests measure (growth across a hostile client) and one inflates
/// on purpose (a 256 MiB ballast): every test shares the one process, so those take turns.
public enum ResidentMemory {
    private static let turn = NSLock()

    /// This process's resident set size in bytes (from /proc/self/status), 0 when unknown.
    public static var bytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    /// Runs `body` while no other test measures or inflates this process's memory. It blocks meanwhile: call it off
    /// the cooperative pool (``onOwnThread(_:)``).
    public static func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        turn.lock()
        defer { turn.unlock() }
        return try body()
    }
}
