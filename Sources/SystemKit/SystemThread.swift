import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own outside Swift concurrency and Dispatch (an event loop, a ledger thread, a listener):
/// `pthread_create`, detached, named for `top` and `/proc`. What Foundation's `Thread` did for the daemon, which links
/// FoundationEssentials and FoundationInternationalization but not Foundation itself.
public enum SystemThread {
    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps) with a stack of
    /// `stackSize` bytes (`nil`: the system's default).
    /// - Throws: ``SystemCallError`` when the system cannot make a thread (`EAGAIN`: a limit on threads).
    public static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
            _ = String(decoding: start.name.utf8.prefix(15), as: UTF8.self).withCString(cepoll_name_this_thread)
            start.body()
            return nil
        }, start.toOpaque())
        guard result == 0 else {
            start.release()
            throw SystemCallError(call: "pthread_create", errno: result)
        }
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// A mutex and its condition variable (`pthread_mutex_t`, `pthread_cond_t`), for threads of their own that wait
/// for each other (a queue of work, a pool, a stop): what Foundation's `NSCondition` is, without Foundation. Never
/// wait on one from the cooperative pool.
public final class ThreadCondition: @unchecked Sendable {
    // Both live at fixed addresses of their own: pthread objects must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the mutex, waiting for it.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Gives the mutex back.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the mutex.
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Gives the mutex back until ``signal()`` or ``broadcast()`` wakes this thread, then takes it again. Call it
    /// holding the mutex, in a loop that checks what it waits for (a wake-up may come without a signal).
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one waiting thread.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
