import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// `expensed compact` run by another process beside a serving `expensed`: the daemon's memory (its id → seq map,
/// totals, history links) stays true to the file, no request can stop it, and a purged deletion stays a deletion.
@Suite(.serialized) struct CompactionBesideDaemonTests {
    private static func put(_ mutationId: Int64, _ id: UUID, base: Int64, amount: Int64 = 1250) -> String {
        #"{"mutationId":\#(mutationId),"type":"put","id":"\#(id.uuidString)","baseVersion":\#(base),"fields":{"amount":\#(amount),"category":"food","date":"2026-01-02","note":"lunch"}}"#
    }

    private static func delete(_ mutationId: Int64, _ id: UUID, base: Int64) -> String {
        #"{"mutationId":\#(mutationId),"type":"delete","id":"\#(id.uuidString)","baseVersion":\#(base)}"#
    }

    private static func push(_ client: WireClient, _ mutations: String...) throws -> [MutationStatus] {
        try PushResult(json: client.result("push", #"{"mutations":[\#(mutations.joined(separator: ","))]}"#)).results.map(\.status)
    }

    /// Returns once the wall clock has moved past the second it read on entry (compaction's cutoff is in whole
    /// seconds, so changes made in the current second are young for `--keep-days 0`): at most a second.
    static func waitForTheNextSecond() {
        let start = Int64(Date().timeIntervalSince1970.rounded(.down))  // not money: seconds
        while Int64(Date().timeIntervalSince1970.rounded(.down)) == start { usleep(10_000) }  // not money: seconds
    }

    @Test func aCreateOfAnIdPurgedByAnotherProcessMeetsItsDeletionAndTheDaemonServesOn() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let (daemon, data) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            let client = try daemon.wireClient(helloToDefaultLedgerIn: data)
            defer { client.close() }
            let gone = UUID(), kept = UUID()
            let first = try Self.push(client, Self.put(1, gone, base: 0), Self.delete(2, gone, base: 1), Self.put(3, kept, base: 0))
            #expect(first == [.applied(version: 1, seq: 1), .applied(version: 2, seq: 2), .applied(version: 1, seq: 3)])

            Self.waitForTheNextSecond()  // --keep-days 0 keeps the changes of the current second
            let compacted = try ExpenseProcess.run(ExpenseProcess.locate("expensed"),
                                                   ["compact", "--ledger", "default", "--keep-days", "0", "--data", data],
                                                   environment: [:], scratch: ann.directory)
            #expect(compacted.status == 0 && compacted.stdout.contains("purged 1 tombstones"), "\(compacted)")

            // The healing client's re-send of the whole expense (a create) meets the deletion it never saw.
            let recreated = try Self.push(client, Self.put(4, gone, base: 0))
            guard case .conflict(let current)? = recreated.first else {
                Issue.record("expected a conflict with the purged deletion, got \(recreated)")
                return
            }
            #expect(current.deleted && current.version == 2 && current.expense.id == gone, "\(current)")
            // A delete of it is the deletion it already is; a restore at the tombstone's version brings it back.
            #expect(try Self.push(client, Self.delete(5, gone, base: 2)) == [.applied(version: 2, seq: 2)])
            #expect(try Self.push(client, Self.put(6, gone, base: 2, amount: 700)) == [.applied(version: 3, seq: 4)])
            // The daemon still serves, its totals and records are what the file holds, and a full pull agrees.
            let records = try client.pullAll()
            #expect(Set(records.map(\.expense.id)) == [gone, kept] && records.allSatisfy { !$0.deleted }, "\(records)")
            let summary = try SummaryResult(json: client.result("summary", "{}"))
            #expect(summary.summary.totals.map(\.amount) == [1950] && summary.summary.totals.map(\.count) == [2], "\(summary)")
            #expect(daemon.stop() == DaemonProcess.Ending(status: 0, reason: .exit), "stderr: \(daemon.stderr)")
        }
    }

    /// A ledger with more live records below the purge horizon than one page holds is pulled whole, from 0 and
    /// from an old cursor alike. Found by `CompactionRandomizedTests` (seed 4915248406458001234, 600 rounds): the
    /// second page of a pull from 0 asks `since` = the first page's last seq, which lies below the horizon, and
    /// the daemon answered it `cursor_expired`, so no client could pull such a ledger, nor heal from it, ever
    /// (the reference client's pages end at 10,000 records or the daemon's `--max-line`).
    @Test func aLedgerLargerThanAPageBelowTheHorizonIsPulledWholeFromZeroAndFromAnOldCursor() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            // Pages of about 300 records: the reference client's pull of 1,200 takes four of them.
            let (daemon, data) = try DaemonProcess.serveDefaultLedger(for: [ann, bob], ["--max-line", "65536"])
            defer { _ = daemon.stop() }
            let token = try DaemonProcess.defaultToken(data: data)
            let writer = try WireClient(daemon.address()), late = try WireClient(daemon.address())
            defer { writer.close(); late.close() }
            _ = try writer.hello(token: token)
            _ = try late.hello(token: token)
            let gone = UUID(), young = UUID()
            #expect(try Self.push(writer, Self.put(1, gone, base: 0)) == [.applied(version: 1, seq: 1)])
            let seen = try PullResult(json: late.result("pull", #"{"since":0}"#))  // the late client holds `gone` live, cursor 1
            #expect(seen.cursor == 1 && seen.changes.map(\.deleted) == [false])
            for first in stride(from: Int64(2), to: 1202, by: 300) { _ = try writer.pushCreates(count: 300, firstMutationId: first) }
            #expect(try Self.push(writer, Self.delete(1202, gone, base: 1), Self.put(1203, young, base: 0))
                    == [.applied(version: 2, seq: 1202), .applied(version: 1, seq: 1203)])
            Self.waitForTheNextSecond()
            let compacted = try ExpenseProcess.run(ExpenseProcess.locate("expensed"),
                                                   ["compact", "--ledger", "default", "--keep-days", "0", "--data", data],
                                                   environment: [:], scratch: ann.directory)
            #expect(compacted.stdout == "horizon 1202, purged 1 tombstones and removed 1202 history entries\n", "\(compacted)")

            // From 0 in pages of 1,000: every live record. The first page leaves purged tombstones out; a later page
            // sent without a snapshot cannot tell its client from a late one and carries those after its cursor.
            let whole = try WireClient(daemon.address())
            defer { whole.close() }
            _ = try whole.hello(token: token)
            let records = try whole.pullAll()
            #expect(records.filter { !$0.deleted }.count == 1201 && records.filter(\.deleted).map(\.expense.id) == [gone])
            // With the snapshot (the head when the pull began) on its later pages, as the reference client sends it,
            // no page carries the purged tombstone.
            var from: Int64 = 0, snapshotted: [Record] = []
            while true {
                let snapshot = from == 0 ? "" : #","snapshot":1203"#
                let page = try PullResult(json: whole.result("pull", #"{"since":\#(from),"limit":1000\#(snapshot)}"#))
                snapshotted += page.changes
                from = page.cursor
                if !page.more { break }
            }
            #expect(snapshotted.count == 1201 && !snapshotted.contains(where: \.deleted), "\(snapshotted.filter(\.deleted))")
            // From the late client's old cursor: every change since, the deletion it has not seen included.
            var since: Int64 = 1, changes: [Record] = []
            while true {
                let page = try PullResult(json: late.result("pull", #"{"since":\#(since),"limit":500}"#))
                changes += page.changes
                since = page.cursor
                if !page.more { break }
            }
            #expect(changes.count == 1202 && changes.filter(\.deleted).map(\.expense.id) == [gone] && since == 1203)
            // The reference client, from an empty cache, in pages cut by the daemon's line.
            let synced = try ann.run(["sync"])
            #expect(synced.status == 0, "\(synced)")
            #expect(try ann.succeed(["list", "--json"]).components(separatedBy: "\"id\"").count - 1 == 1201)
            #expect(daemon.stop() == DaemonProcess.Ending(status: 0, reason: .exit), "stderr: \(daemon.stderr)")
        }
    }
}
