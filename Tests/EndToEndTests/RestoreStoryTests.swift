import TestSupport
import Foundation
import Testing

/// The restore story with the real binaries (docs/reliability.md "Restore"): a backup, more changes from two
/// people (acknowledged), then the daemon goes back to the backup — with `expensed restore`, or by copying the file
/// over `NAME.sqlite` by hand — and comes back on a new port. Every `sync` exits 0; afterwards each cache equals
/// the daemon, and the daemon holds every change either person had seen acknowledged, once.
@Suite(.serialized) struct RestoreStoryTests {
    @Test(arguments: [false, true])
    func afterARestoreEverySyncHealsAndEveryCacheEqualsTheDaemon(copyByHand: Bool) async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess(), bob = try ExpenseProcess()
            let data = ann.directory + "/data", file = ann.directory + "/backup.sqlite"
            var daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)
            for person in [ann, bob] {
                try person.setRemote(toDefaultLedgerOf: daemon, data: data)
            }
            try ann.succeed(["add", "12.00", "food", "--date", "2026-03-01", "--note", "lunch"])
            try ann.succeed(["add", "25.00", "travel", "--date", "2026-03-01", "--note", "taxi"])
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            let backup = try ann.run(["backup", file, "--ledger", "default", "--data", data], executable: ExpenseProcess.daemonExecutable)
            #expect(backup.status == 0, "\(backup)")

            let lunch = try Self.id(of: "lunch", in: ann), taxi = try Self.id(of: "taxi", in: bob)
            try ann.succeed(["add", "30.00", "books", "--date", "2026-03-02"])
            try ann.succeed(["edit", lunch, "--amount", "15.00"])
            try ann.succeed(["sync"])
            try bob.succeed(["add", "4.00", "food", "--date", "2026-03-03", "--note", "tea"])
            try bob.succeed(["delete", taxi])
            try bob.succeed(["sync"])
            try ann.succeed(["sync"])
            try bob.succeed(["sync"])
            let acknowledged = try Self.summary(ann, server: true)
            #expect(acknowledged.contains(#""amount" : 4900"#), "\(acknowledged)")  // 15 + 30 + 4
            try ann.succeed(["add", "9.00", "fun", "--date", "2026-03-04"])     // offline, never sent

            #expect(daemon.stop().status == 0)
            if copyByHand {
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: data + "/default.sqlite" + suffix) }
                try FileManager.default.removeItem(atPath: data + "/default.sqlite")
                try FileManager.default.copyItem(atPath: file, toPath: data + "/default.sqlite")
            } else {
                let restore = try ann.run(["restore", file, "--ledger", "default", "--data", data], executable: ExpenseProcess.daemonExecutable)
                #expect(restore.status == 0, "\(restore)")
            }
            daemon = try DaemonProcess.serve(data: data, scratch: ann.directory)  // a new port: the same ledger id
            for person in [ann, bob] {
                try person.setRemote(toDefaultLedgerOf: daemon, data: data)
            }
            for _ in 0..<2 {
                for person in [ann, bob] {
                    let sync = try person.run(["sync"])
                    #expect(sync.status == 0, "\(sync)")
                }
            }
            let server = try Self.summary(ann, server: true)
            #expect(server.contains(#""amount" : 5800"#) && server.contains(#""count" : 4"#), "\(server)")  // 15 + 30 + 4 + 9
            for person in [ann, bob] {
                #expect(try Self.summary(person, server: false) == server)
                let status = try person.succeed(["status", "--json"])
                #expect(status.contains(#""pending" : 0"#) && status.contains(#""conflicts" : 0"#), "\(status)")
            }
            #expect(try ann.succeed(["list", "--json"]) == (try bob.succeed(["list", "--json"])))
            #expect(daemon.stop().status == 0)
        }
    }

    private static func id(of note: String, in person: ExpenseProcess) throws -> String {
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(try person.succeed(["list", "--json"]).utf8)) as? [[String: Any]])
        return try #require(rows.first { $0["note"] as? String == note }?["id"] as? String)
    }

    /// `summary --json` (local) or `summary --server --json`, without the cursor the daemon's carries.
    private static func summary(_ person: ExpenseProcess, server: Bool) throws -> String {
        let text = try person.succeed(server ? ["summary", "--server", "--json"] : ["summary", "--json"])
        return text.split(separator: "\n").filter { !$0.contains("\"cursor\"") }.joined(separator: "\n")
    }
}
