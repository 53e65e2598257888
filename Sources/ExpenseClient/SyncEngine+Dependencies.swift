import Foundation

extension SyncEngine {
    /// Where a test may inject a fault (by throwing ``SyncError/unreachable(_:)``).
    package enum FaultPoint: Sendable, Hashable {
        /// A push is written; its answer not yet read.
        case pushWritten
        /// A push's answer is read but not yet applied (throwing here is an answer lost after the daemon applied it).
        case pushAnswered
    }

    /// Everything a test may replace in a ``SyncEngine``, in one place and given at init: the time, the order of
    /// the addresses, faults in a push, and an observer of what the daemon applied.
    ///
    /// Production code reads these and never sets them; ``live`` is what every command runs with (`expense sync`
    /// only passes its own clock, which `EXPENSE_NOW` sets for the CLI's tests). Options a caller sets on purpose
    /// are in ``Configuration``.
    package struct Dependencies {
        /// Now: recurring occurrences are materialised up to its day (when
        /// ``Configuration/materialisesRecurring``). Live: the system clock.
        package var clock: () -> Date
        /// Orders the addresses of the remote's list other than the one that worked last. Live: shuffled, so many
        /// clients spread over the daemons; a test passes `{ $0 }` to keep the written order.
        package var shuffle: ([RemoteAddress]) -> [RemoteAddress]
        /// Called at each ``FaultPoint`` with the batch, to lose a connection or an answer there. Live: `nil`, and
        /// a push takes its plain path.
        package var faultInjection: ((FaultPoint, [PendingMutation]) throws -> Void)?
        /// Told of every change the daemon acknowledged as applied, with its version (tests check none is lost or
        /// doubled). Live: `nil`, and an answer is not walked for it.
        package var onApplied: ((PendingMutation, Int64) -> Void)?

        package init(clock: @escaping () -> Date = { Date() },
                     shuffle: @escaping ([RemoteAddress]) -> [RemoteAddress] = { $0.shuffled() },
                     faultInjection: ((FaultPoint, [PendingMutation]) throws -> Void)? = nil,
                     onApplied: ((PendingMutation, Int64) -> Void)? = nil) {
            self.clock = clock
            self.shuffle = shuffle
            self.faultInjection = faultInjection
            self.onApplied = onApplied
        }

        /// The real clock, shuffled addresses, no faults, no observer.
        package static var live: Dependencies { Dependencies() }
    }
}
