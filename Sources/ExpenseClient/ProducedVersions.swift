import ExpenseProtocol

/// The `seq`s of the versions this sync's own pushes were answered with: a pulled record at one of them is the
/// echo of this client's change, not another client's (``SyncEngine/Report/pulled``).
///
/// A class, so one set is shared by the steps of a session (`recover`, `push`, `pull`); used by that session's
/// thread only.
package final class ProducedVersions {
    package private(set) var seqs: Set<Int64> = []
    /// The highest cursor a push answer announced (the head a pull after it goes to, for its progress).
    package private(set) var cursor: Int64 = 0

    package init() {}

    /// Notes every version `result` says a change of this client was applied at (a `duplicate`'s original too).
    package func note(_ result: PushResult) {
        cursor = max(cursor, result.cursor)
        for item in result.results {
            var status = item.status
            if case .duplicate(let original?) = status { status = original.status }
            if case .applied(_, let seq) = status { seqs.insert(seq) }
        }
    }
}
