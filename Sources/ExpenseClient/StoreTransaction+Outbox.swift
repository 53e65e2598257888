extension StoreTransaction {
    /// The one outbox paging loop: visits the queue's entries after `position` in queue order, a page of 1,000
    /// at a time (the whole queue is never in memory), until `body` returns `false` or the queue ends. `body` may
    /// update or remove the entry it is given.
    func forEachPending(after position: Int64 = 0, _ body: (PendingMutation) throws -> Bool) throws {
        var position = position
        while true {
            let page = try pending(after: position, limit: 1000)
            guard let lastEntry = page.last else { return }
            position = lastEntry.position
            for entry in page where try !body(entry) { return }
        }
    }
}
