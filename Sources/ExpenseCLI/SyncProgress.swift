import ExpenseClient
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `expense sync` tells on a terminal's standard error while it works (docs/usage.md, "Sync"): the text of each
/// ``SyncEvent``, as a pure function of the event and the time its phase has taken.
package enum SyncProgress {
    /// One thing to show.
    package enum Output: Equatable {
        /// A status line, redrawn in place (`\r`) by the next one and cleared at the end.
        case status(String)
        /// A line that stays (a retry: the reason matters afterwards).
        case line(String)
        /// Clear the status line.
        case clear
    }

    /// The output for `event`, `elapsed` after its phase (the push, the pull) began.
    package static func render(_ event: SyncEvent, elapsed: Duration) -> Output {
        switch event {
        case .connecting(let server, let attempt, let attempts):
            return .status(attempt > 1 ? "connecting to \(server) (\(attempt)/\(attempts))…" : "connecting to \(server)…")
        case .retrying(let attempt, let attempts, let wait, let reason):
            return .line("\(reason); retrying (\(attempt)/\(attempts)) in \(SyncConnection.seconds(wait)) s")
        case .pushing(let sent, let total):
            let remaining = Double(max(total - sent, 0))  // not money: a count of changes
            return .status("pushing \(sent)/\(total) changes \(percent(Double(sent), of: Double(total)))"
                           + rates(done: Double(sent), remaining: remaining, elapsed: elapsed, unit: "changes"))  // not money
        case .pulling(let records, let from, let cursor, let head):
            let done = Double(cursor - from), all = Double(max(head - from, cursor - from))  // not money: cursor positions
            // The rate is in records; the share done is by cursor (the records left are not known).
            var text = "pulling \(records) records \(percent(done, of: all))"
            let seconds = seconds(elapsed)
            if seconds > 0, records > 0 {
                text += "  \(Int((Double(records) / seconds).rounded()))/s"
                if done > 0, all > done { text += "  ETA \(clock(seconds * (all - done) / done))" }
            }
            return .status(text)
        case .indexing:
            return .status("building indexes…")
        case .finished:
            return .clear
        }
    }

    /// `sent` of `total` as `(45 %)`; a whole phase with nothing to do is 100 %.
    private static func percent(_ done: Double, of total: Double) -> String { // not money: a share
        "(\(total > 0 ? Int((100 * done / total).rounded(.down)) : 100) %)"
    }

    /// `  4000 changes/s  ETA 12 s`, once a rate can be told.
    private static func rates(done: Double, remaining: Double, elapsed: Duration, unit: String) -> String { // not money: counts
        let seconds = seconds(elapsed)
        guard seconds > 0, done > 0 else { return "" }
        let rate = done / seconds
        return "  \(Int(rate.rounded())) \(unit)/s" + (remaining > 0 ? "  ETA \(clock(remaining / rate))" : "")
    }

    private static func seconds(_ duration: Duration) -> Double { // not money: seconds
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `7 s`, `2 min 05 s`, `1 h 02 min`.
    package static func clock(_ seconds: Double) -> String { // not money: seconds
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(String(format: "%02d", whole % 60)) s" }
        return "\(whole / 3600) h \(String(format: "%02d", whole / 60 % 60)) min"
    }
}

/// Draws ``SyncProgress`` on standard error, which must be a terminal: status lines redrawn with `\r` at most
/// ten times a second (the last of a phase always), retry lines kept, everything cleared when the sync ends.
final class SyncProgressDisplay {
    private let clock = ContinuousClock()
    private var phaseStart: ContinuousClock.Instant
    private var phase: Int?
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    private init() { phaseStart = clock.now }

    /// A display when standard error is a terminal, else `nil` (nothing at all is written).
    static func forStandardError() -> SyncProgressDisplay? {
        isatty(STDERR_FILENO) != 0 ? SyncProgressDisplay() : nil
    }

    /// Shows `event`.
    func show(_ event: SyncEvent) {
        let now = clock.now
        let kind: Int
        var final = false
        switch event {
        case .pushing(let sent, let total):
            kind = 1
            final = sent >= total
        case .pulling(_, _, let cursor, let head):
            kind = 2
            final = cursor >= head
        default: kind = 0
        }
        if kind != phase {
            phase = kind
            phaseStart = now
            lastDraw = nil
        }
        let output = SyncProgress.render(event, elapsed: now - phaseStart)
        switch output {
        case .status(let text):
            if let lastDraw, now - lastDraw < .milliseconds(100), !final { return }
            lastDraw = now
            write("\r" + text + "\u{1B}[K")
            drawn = true
        case .line(let text):
            write((drawn ? "\r\u{1B}[K" : "") + text + "\n")
            drawn = false
        case .clear:
            if drawn { write("\r\u{1B}[K") }
            drawn = false
            phase = nil
        }
    }

    private func write(_ text: String) { _ = Console.write(STDERR_FILENO, Array(text.utf8)) }
}
