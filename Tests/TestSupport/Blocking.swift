import Dispatch

/// Runs async work from a plain thread (never the cooperative pool: it blocks its caller) and waits for it.
public func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
