@testable import ExpenseServer
import Testing

/// The cadence of `expensed serve --compact-after N` (``CompactionSchedule``) as a transcript of wake-ups with
/// injected clocks: `uptime` is the monotonic clock, `now` the wall clock.
struct CompactionScheduleTests {
    private let day: Int64 = 86_400
    private let wall: Int64 = 1_764_590_400

    @Test func compactsAtStartThenDailyKeepingNDaysOfTheWallClockOfEachRun() {
        var schedule = CompactionSchedule(keepDays: 30)
        #expect(schedule.wake(uptime: 100, now: wall) == .init(cutoff: wall - 30 * day, wakeAt: 100 + day))
        #expect(schedule.wake(uptime: 100 + day, now: wall + day) == .init(cutoff: wall + day - 30 * day, wakeAt: 100 + 2 * day))
        #expect(schedule.wake(uptime: 100 + 2 * day, now: wall + 2 * day) == .init(cutoff: wall - 28 * day, wakeAt: 100 + 3 * day))
    }

    @Test func anEarlyWakeUpDoesNotCompactAndKeepsTheDueTime() {
        var schedule = CompactionSchedule(keepDays: 1)
        _ = schedule.wake(uptime: 0, now: wall)
        #expect(schedule.wake(uptime: day - 1, now: wall + day - 1) == .init(cutoff: nil, wakeAt: day))
        #expect(schedule.wake(uptime: day, now: wall + day).cutoff == wall)
    }

    @Test func aLateWakeUpCompactsOnceAndCountsTheNextDayFromThen() {
        var schedule = CompactionSchedule(keepDays: 7)
        _ = schedule.wake(uptime: 0, now: wall)
        // Suspended for three days: one run now (it removes all three days' worth), the next a day later.
        #expect(schedule.wake(uptime: 3 * day + 5, now: wall + 3 * day + 5) == .init(cutoff: wall - 4 * day + 5, wakeAt: 4 * day + 5))
        #expect(schedule.wake(uptime: 3 * day + 6, now: wall + 3 * day + 6).cutoff == nil)
    }

    @Test func theCutoffFollowsTheWallClockEvenWhenItStepsBack() {
        var schedule = CompactionSchedule(keepDays: 2, interval: 60)
        _ = schedule.wake(uptime: 0, now: wall)
        #expect(schedule.wake(uptime: 60, now: wall - 3_600).cutoff == wall - 3_600 - 2 * day)
    }
}
