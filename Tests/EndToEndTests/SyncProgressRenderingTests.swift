import ExpenseCLI
import ExpenseClient
import Testing

/// The text `expense sync` draws on a terminal (`SyncProgress.render`), as a pure function of the event and
/// the time its phase took.
struct SyncProgressRenderingTests {
    @Test func connectingAndRetrying() {
        #expect(SyncProgress.render(.connecting(server: "127.0.0.1:7468", attempt: 1, attempts: 4), elapsed: .zero)
                == .status("connecting to 127.0.0.1:7468…"))
        #expect(SyncProgress.render(.connecting(server: "h:1", attempt: 2, attempts: 4), elapsed: .zero)
                == .status("connecting to h:1 (2/4)…"))
        #expect(SyncProgress.render(.retrying(attempt: 2, attempts: 4, wait: .seconds(2), reason: "connection refused"),
                                    elapsed: .zero) == .line("connection refused; retrying (2/4) in 2 s"))
        #expect(SyncProgress.render(.retrying(attempt: 3, attempts: 4, wait: .milliseconds(400), reason: "x"),
                                    elapsed: .zero) == .line("x; retrying (3/4) in 0.4 s"))
    }

    @Test func pushCountsRateAndETA() {
        #expect(SyncProgress.render(.pushing(sent: 0, total: 200_000), elapsed: .zero) == .status("pushing 0/200000 changes (0 %)"))
        #expect(SyncProgress.render(.pushing(sent: 50_000, total: 200_000), elapsed: .seconds(10))
                == .status("pushing 50000/200000 changes (25 %)  5000 changes/s  ETA 30 s"))
        #expect(SyncProgress.render(.pushing(sent: 200_000, total: 200_000), elapsed: .seconds(40))
                == .status("pushing 200000/200000 changes (100 %)  5000 changes/s"))
    }

    @Test func pullCountsRateAndETAByCursor() {
        #expect(SyncProgress.render(.pulling(records: 0, from: 0, cursor: 0, head: 1_000_000), elapsed: .zero)
                == .status("pulling 0 records (0 %)"))
        #expect(SyncProgress.render(.pulling(records: 100_000, from: 0, cursor: 100_000, head: 1_000_000), elapsed: .seconds(1))
                == .status("pulling 100000 records (10 %)  100000/s  ETA 9 s"))
        #expect(SyncProgress.render(.pulling(records: 10, from: 90, cursor: 100, head: 100), elapsed: .seconds(1))
                == .status("pulling 10 records (100 %)  10/s"))
        #expect(SyncProgress.render(.indexing, elapsed: .seconds(3)) == .status("building indexes…"))
        #expect(SyncProgress.render(.finished, elapsed: .zero) == .clear)
    }

    @Test func etaClock() {
        #expect(SyncProgress.clock(0.2) == "1 s")
        #expect(SyncProgress.clock(59) == "59 s")
        #expect(SyncProgress.clock(125) == "2 min 05 s")
        #expect(SyncProgress.clock(3725) == "1 h 02 min")
    }
}
