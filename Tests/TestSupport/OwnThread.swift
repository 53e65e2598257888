import Foundation

/// Runs blocking work (sockets, child processes, a sync engine) on a thread of its own and awaits it.
///
/// Every test target runs in one process, whose cooperative pool has one thread per core (two here); a test
/// blocked on that pool starves the in-process daemons of the other tests, whose hellos then time out. The
/// stack is 4 MiB, enough for the sync engine's deepest calls.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 4 << 20
        thread.start()
    }
}
