/// Copies of the texts and blobs a ``SQLiteRowStatement`` binds during one ``SQLiteRowStatement/run(count:_:)``,
/// kept where they are until the run ends, so SQLite can take them as they are (`SQLITE_STATIC`).
///
/// Bound with `SQLITE_TRANSIENT`, SQLite gives every value its own allocation and copy each time it is bound again
/// (a `malloc`, `memcpy` and `free` per value: ~1.7k instructions per mutation of a 500-mutation push). Here a
/// value costs one `memcpy` into a block; blocks never move, so every pointer handed out stays valid until
/// ``reset()``. The first block is the arena's own for its life; a run that needs more allocates blocks of
/// ``blockSize`` and ``reset()`` frees them.
///
/// The cursor lives behind a pointer rather than in stored properties: a class's stored `var`s are checked for
/// exclusive access at run time on every access, which cost more than the copies themselves.
///
/// Not `Sendable`: it belongs to one statement, used only by its connection's owner.
final class SQLiteBindArena {
    /// The size of the blocks a run allocates beyond the first; a value larger than a quarter of it gets an
    /// allocation of its own.
    static let blockSize = 64 * 1024

    private struct State {
        /// Where the next copy goes, and how many bytes are left after it in the current block.
        var cursor: UnsafeMutableRawPointer
        var remaining: Int
        /// Blocks and large values allocated during this run (freed by ``reset()``).
        var allocated: [UnsafeMutableRawPointer] = []
    }

    private let first: UnsafeMutableRawPointer
    private let firstSize: Int
    private let state: UnsafeMutablePointer<State>

    /// - Parameter firstBlock: the bytes kept for every run (a run whose values fit allocates nothing).
    init(firstBlock: Int = 4096) {
        firstSize = max(firstBlock, 16)
        first = .allocate(byteCount: firstSize, alignment: 16)
        state = .allocate(capacity: 1)
        state.initialize(to: State(cursor: first, remaining: firstSize))
    }

    deinit {
        for pointer in state.pointee.allocated { pointer.deallocate() }
        state.deinitialize(count: 1)
        state.deallocate()
        first.deallocate()
    }

    /// A copy of `bytes` that stays in place until ``reset()``; `nil` for no bytes (the caller binds those as the
    /// empty value it means without a pointer into the arena).
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return nil }
        let count = bytes.count
        if count > state.pointee.remaining {
            if count > Self.blockSize / 4 { return UnsafeRawPointer(allocate(count, copying: source)) }
            let block = UnsafeMutableRawPointer.allocate(byteCount: Self.blockSize, alignment: 16)
            state.pointee.allocated.append(block)
            state.pointee.cursor = block
            state.pointee.remaining = Self.blockSize
        }
        let target = state.pointee.cursor
        target.copyMemory(from: source, byteCount: count)
        state.pointee.cursor = target + count
        state.pointee.remaining -= count
        return UnsafeRawPointer(target)
    }

    /// A value of its own allocation, kept in the run's list.
    private func allocate(_ count: Int, copying source: UnsafeRawPointer) -> UnsafeMutableRawPointer {
        let base = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        base.copyMemory(from: source, byteCount: count)
        state.pointee.allocated.append(base)
        return base
    }

    /// Forgets every copy: the caller has made sure no statement still points at one. Frees what the run
    /// allocated; the first block stays.
    func reset() {
        if !state.pointee.allocated.isEmpty {
            for pointer in state.pointee.allocated { pointer.deallocate() }
            state.pointee.allocated.removeAll(keepingCapacity: true)
        }
        state.pointee.cursor = first
        state.pointee.remaining = firstSize
    }
}
