/// A store that keeps everything in memory: for tests and for dry runs.
package final class InMemoryExpenseStore: StateBackedStore {
    var state = StoreState.fresh()

    package init() {}

    package var location: String { ":memory:" }

    func persist(_ newState: StoreState) throws {}

    /// Nobody else writes this state.
    func reload() throws {}

    /// One owner, so no lock.
    func exclusively<T>(_ body: () throws -> T) throws -> T { try body() }
}
