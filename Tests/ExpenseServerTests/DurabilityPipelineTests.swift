import Testing
@testable import ExpenseServer

/// ``DurabilityPipeline`` as transcripts: commits, syncs that start and end, and what each settles.
@Suite struct DurabilityPipelineTests {
    typealias Pipeline = DurabilityPipeline<String>

    @Test func aCommitStartsASyncAndItsEndAcknowledgesIt() {
        var pipeline = Pipeline()
        #expect(pipeline.commit("a") == .startSync(through: 1))
        #expect(pipeline.needsSync)
        let outcome = pipeline.backgroundSyncEnded(through: 1, succeeded: true)
        #expect(outcome.acknowledged == ["a"])
        #expect(outcome.failed.isEmpty)
        #expect(outcome.next == .none)
        #expect(!pipeline.needsSync)
    }

    @Test func groupsCommittedDuringASyncWaitForTheNextOneWhichCoversThemAll() {
        var pipeline = Pipeline()
        #expect(pipeline.commit("a") == .startSync(through: 1))
        #expect(pipeline.commit("b") == .none, "a sync is in flight: b waits")
        #expect(pipeline.commit("c") == .none)
        let first = pipeline.backgroundSyncEnded(through: 1, succeeded: true)
        #expect(first.acknowledged == ["a"], "the sync started before b committed: it does not cover b")
        #expect(first.next == .startSync(through: 3))
        let second = pipeline.backgroundSyncEnded(through: 3, succeeded: true)
        #expect(second.acknowledged == ["b", "c"])
        #expect(second.next == .none)
    }

    @Test func anInlineSyncCoversEverythingAndTheBackgroundSyncEndingLaterAcknowledgesNothingTwice() {
        var pipeline = Pipeline()
        _ = pipeline.commit("a")
        _ = pipeline.commit("b")
        let inline = pipeline.syncedInline(succeeded: true)
        #expect(inline.acknowledged == ["a", "b"])
        let late = pipeline.backgroundSyncEnded(through: 1, succeeded: true)
        #expect(late.acknowledged.isEmpty)
        #expect(late.next == .none, "nothing is left to sync")
        #expect(pipeline.commit("c") == .startSync(through: 3))
    }

    @Test func aFailedSyncFailsEveryWaitingGroupAndNothingIsAcknowledgedAfter() {
        var pipeline = Pipeline()
        _ = pipeline.commit("a")
        _ = pipeline.commit("b")
        let failed = pipeline.backgroundSyncEnded(through: 1, succeeded: false)
        #expect(failed.acknowledged.isEmpty)
        #expect(failed.failed == ["a", "b"], "b committed after the sync started, but the file is in doubt")
        #expect(failed.next == .none)
        #expect(pipeline.failed)
        let later = pipeline.syncedInline(succeeded: true)
        #expect(later.acknowledged.isEmpty, "after a failed sync, no later success acknowledges anything")
    }

    @Test func aWriteNobodyWaitsForNeedsASyncButStartsNone() {
        var pipeline = Pipeline()
        pipeline.noteWrite()
        #expect(pipeline.needsSync)
        #expect(pipeline.syncingThrough == nil)
        #expect(pipeline.syncedInline(succeeded: true).acknowledged.isEmpty)
        #expect(!pipeline.needsSync)
    }
}
