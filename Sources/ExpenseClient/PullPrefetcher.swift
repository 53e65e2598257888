import ExpenseProtocol
import Foundation

/// Pull pages read and decoded on a thread of its own while the caller stores the previous page: on two cores
/// the daemon encodes, this thread decodes and the caller writes SQLite at the same time.
///
/// The reader sends the request for the next page as soon as the first bytes of a page's line have arrived (on
/// the cursor they announce, ``PullPageDecoder/announcedCursor(_:)``), then reads the rest and decodes it: at
/// most two requests in flight and at most ``capacity`` decoded pages waiting. ``finish()`` (also after an error
/// on either side) stops it and waits until it has let go of the connection.
final class PullPrefetcher: @unchecked Sendable {
    // Safety (`@unchecked Sendable`): `connection` is touched only by the reader thread, from `init` until the
    // thread signals `done`; `finish()` waits for `done` before returning, and the owner uses the connection
    // again only after `finish()`. Everything else (`pages`, `stopped`, `ended`) is guarded by `condition`.
    private let connection: SyncConnection
    private let condition = NSCondition()
    private var pages: [Result<PullResult, SyncError>] = []
    private var stopped = false
    private var ended = false
    private let done = DispatchSemaphore(value: 0)
    /// Decoded pages that may wait for the caller (each holds up to 10,000 records).
    static let capacity = 2

    /// Starts reading pages from `cursor`.
    init(connection: SyncConnection, since cursor: Int64, limit: Int) {
        self.connection = connection
        let thread = Thread { [self] in
            read(since: cursor, limit: limit)
            done.signal()
        }
        thread.name = "expense-pull"
        thread.start()
    }

    /// The next page in order, or `nil` after the last one (`more` false).
    /// - Throws: what reading or decoding it threw (``SyncError``).
    func next() throws(SyncError) -> PullResult? {
        condition.lock()
        defer { condition.unlock() }
        while pages.isEmpty && !ended { condition.wait() }
        guard !pages.isEmpty else { return nil }
        let page = pages.removeFirst()
        condition.signal()
        return try page.get()
    }

    /// Stops the reader and waits for it (at most the one answer in flight).
    func finish() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        done.wait()
    }

    private func read(since start: Int64, limit: Int) {
        var cursor = start
        // A pull from 0 says on its later pages when it began (the head hello announced, at or before the first
        // page), so they leave out the tombstones purged before it as the first page does (Protocol.md §5.9).
        let snapshot: Int64? = start == 0 ? connection.hello.cursor : nil
        func pullRequest(since: Int64) -> PullRequest {
            PullRequest(since: since, limit: limit, snapshot: since == 0 ? nil : snapshot)
        }
        // The request for the next page, sent as soon as this page's line begins to arrive (on the cursor its first
        // bytes announce), so the daemon encodes the next page while this one travels and this thread decodes it.
        var ahead: (id: Int64, since: Int64)?
        var failed = false
        while true {
            let result: Result<PullResult, SyncError>
            do throws(SyncError) {
                let request: (id: Int64, since: Int64)
                if let sent = ahead {
                    request = sent
                } else {
                    request = (try connection.send(pullRequest(since: cursor)), cursor)
                }
                ahead = nil
                let page = try connection.receive(PullRequest.self, id: request.id) { line in
                    guard ahead == nil, let next = PullPageDecoder.announcedCursor(line),
                          let id = try? connection.send(pullRequest(since: next)) else { return }
                    ahead = (id, next)
                }
                if let guess = ahead, !page.more || guess.since != page.cursor {
                    // The line announced another cursor than the page holds (never with this daemon):
                    // the answer to that request is read and dropped.
                    ahead = nil
                    try connection.discardAnswer(id: guess.id)
                }
                result = .success(page)
            } catch {
                result = .failure(error)
                failed = true
            }
            condition.lock()
            while pages.count >= Self.capacity && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                break
            }
            pages.append(result)
            let last: Bool
            switch result {
            case .success(let page):
                last = !page.more
                cursor = page.cursor
            case .failure:
                last = true
            }
            if last { ended = true }
            condition.broadcast()
            condition.unlock()
            if last { break }
        }
        // Stopped early with a request ahead: its answer is read, so the connection is left in step. (After a
        // failure the connection is not used again: the sync closes it.)
        if let guess = ahead, !failed { try? connection.discardAnswer(id: guess.id) }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}
