import TestSupport
import ExpenseCore
import ExpenseProtocol
import Foundation
import Testing

/// Tags through the daemon: tag sets edited on two offline machines merge as sets (Protocol.md §7.4), a tag
/// added on one side and removed on the other is a conflict, and the daemon refuses what the client refuses.
@Suite struct TagsSyncCommandTests {
    static let environment = ["LC_ALL": "C"]

    /// Two machines on one daemon, both holding one synced expense tagged `tags` (none when empty); its id.
    static func twoMachines(tags: [String]) throws -> (ExpenseProcess, ExpenseProcess, DaemonProcess, String) {
        let ann = try ExpenseProcess(), bob = try ExpenseProcess()
        try ann.succeed(["config", "set", "currency", "EUR"])
        try bob.succeed(["config", "set", "currency", "EUR"])
        let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann, bob], ["--currency", "EUR"])
        let id = try ann.succeed(["add", "12.50", "food", "--date", "2026-03-02"] + tags.flatMap { ["--tag", $0] })
            .trimmingCharacters(in: .newlines)
        try ann.succeed(["sync"]); try bob.succeed(["sync"])
        return (ann, bob, daemon, id)
    }

    static func tags(_ person: ExpenseProcess, _ id: String) throws -> [String] {
        let text = try person.succeed(["list", "--json"])
        let array = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
        let object = try #require(array.first { $0["id"] as? String == id }, "\(text)")
        return object["tags"] as? [String] ?? []
    }

    @Test("offline on two machines: different tags added on each merge into their union, the same tag added on both is one")
    func setsMerge() async throws {
        try await onOwnThread {
            let (ann, bob, daemon, id) = try Self.twoMachines(tags: ["base"])
            defer { _ = daemon.stop() }
            let short = String(id.prefix(8))
            try ann.succeed(["edit", short, "--tag", "base", "--tag", "trip", "--tag", "both"])
            try bob.succeed(["edit", short, "--tag", "base", "--tag", "work", "--tag", "both"])
            try ann.succeed(["sync"])
            // Bob's edit was made on the version before Ann's: merged by the daemon, not a conflict, and the merged
            // set (not the one Bob sent) is what Bob's machine shows at once.
            let merged = try bob.run(["sync"])
            #expect(merged.status == 0 && !merged.stdout.contains("conflicts 1"), "\(merged)")
            #expect(try Self.tags(bob, id) == ["base", "both", "trip", "work"])
            #expect(try bob.succeed(["conflicts"]).isEmpty)
            try ann.succeed(["sync"])
            #expect(try Self.tags(ann, id) == ["base", "both", "trip", "work"])
            // A removal on one side and an addition on the other, of different tags, merge too.
            try ann.succeed(["edit", short, "--tag", "base", "--tag", "both", "--tag", "work"])  // removes trip
            try bob.succeed(["edit", short, "--tag", "base", "--tag", "both", "--tag", "trip", "--tag", "work", "--tag", "new"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for person in [ann, bob] { #expect(try Self.tags(person, id) == ["base", "both", "new", "work"]) }
            // The daemon's history shows each change of the tags.
            let history = try ann.succeed(["history", short], environment: Self.environment)
            #expect(history.contains("tags"), "\(history)")
        }
    }

    @Test("a tag edit and a note edit made offline on two machines are both kept")
    func tagsAndAnotherField() async throws {
        try await onOwnThread {
            let (ann, bob, daemon, id) = try Self.twoMachines(tags: [])
            defer { _ = daemon.stop() }
            try ann.succeed(["edit", String(id.prefix(8)), "--note", "lunch"])
            try bob.succeed(["edit", String(id.prefix(8)), "--tag", "work"])
            try ann.succeed(["sync"]); try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for person in [ann, bob] { #expect(try Self.tags(person, id) == ["work"]) }
        }
    }

    @Test("a tag added on one machine that the other removed since is a conflict, shown and resolved like any other")
    func addAgainstRemoveConflicts() async throws {
        try await onOwnThread {
            let (ann, bob, daemon, id) = try Self.twoMachines(tags: [])
            defer { _ = daemon.stop() }
            let short = String(id.prefix(8))
            // Ann adds x and removes it again (two synced versions); Bob, still on the first, adds x.
            try ann.succeed(["edit", short, "--tag", "x"]); try ann.succeed(["sync"])
            try ann.succeed(["edit", short, "--no-tags"]); try ann.succeed(["sync"])
            try bob.succeed(["edit", short, "--tag", "x", "--tag", "y"])
            let conflicted = try bob.run(["sync"])
            #expect(conflicted.status == 3 && conflicted.stdout.contains("conflicts 1"), "\(conflicted)")
            let conflicts = try bob.succeed(["conflicts"], environment: Self.environment)
            #expect(conflicts.contains("tags") && conflicts.contains("x,y"), "\(conflicts)")
            try bob.succeed(["resolve", short, "--mine"])
            try bob.succeed(["sync"]); try ann.succeed(["sync"])
            for person in [ann, bob] { #expect(try Self.tags(person, id) == ["x", "y"]) }

            // The other way round: Bob removes a tag that Ann removed and added again since.
            try ann.succeed(["edit", short, "--tag", "y"]); try ann.succeed(["sync"])
            try ann.succeed(["edit", short, "--tag", "x", "--tag", "y"]); try ann.succeed(["sync"])
            try bob.succeed(["edit", short, "--tag", "y"])  // removes x, which Ann removed and added again
            let again = try bob.run(["sync"])
            #expect(again.status == 3 && again.stdout.contains("conflicts 1"), "\(again)")
            try bob.succeed(["resolve", short, "--theirs"])
            #expect(try Self.tags(bob, id) == ["x", "y"])
        }
    }

    @Test("summary and stats --server --tag: the daemon counts only the expenses with every tag, as the local copy does")
    func serverFiltersByTag() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let (daemon, _) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            try ann.succeed(["add", "12.50", "food", "--date", "2026-03-02", "--tag", "work", "--tag", "trip-2026"])
            try ann.succeed(["add", "30", "hotel", "--date", "2026-03-03", "--tag", "trip-2026"])
            try ann.succeed(["add", "7", "food", "--date", "2026-03-04"])
            try ann.succeed(["add", "84.20", "food", "--date", "2026-03-05", "--tag", "trip-2026", "--part", "household=12.30"])
            try ann.succeed(["sync"])
            let month = ["--from", "2026-03-01", "--to", "2026-03-31"]
            for arguments in [["summary", "--tag", "trip-2026", "--by", "category", "--json"], ["summary", "--tag", "trip-2026", "--tag", "work", "--json"],
                              ["stats", "--tag", "trip-2026", "--by", "category", "--json"] + month] {
                let local = try ann.succeed(arguments)
                #expect(try ann.succeed(arguments + ["--server"]) == local, "\(arguments)")
            }
            let trip = try ann.succeed(["summary", "--tag", "trip-2026", "--server", "--json"])
            #expect(trip.contains("12670") && !trip.contains("13370"), "12.50 + 30.00 + 84.20, not the untagged 7.00: \(trip)")
            let bad = try ann.run(["summary", "--tag", "a b", "--server"])
            #expect(bad.status == 65 && bad.stderr.contains("invalid_tags"), "\(bad)")
        }
    }

    @Test("the daemon refuses tags the client would refuse: invalid_tags")
    func daemonRefuses() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            let (daemon, data) = try DaemonProcess.serveDefaultLedger(for: [ann])
            defer { _ = daemon.stop() }
            let client = try daemon.wireClient(helloToDefaultLedgerIn: data)
            defer { client.close() }
            let many = (1...17).map { "\"t\($0)\"" }.joined(separator: ",")
            for (index, tags) in [#"["a b"]"#, #"["a,b"]"#, #"[""]"#, "[\(many)]", #""work""#, "[1]"].enumerated() {
                let put = #"{"mutationId":\#(index + 1),"type":"put","id":"\#(UUID().uuidString)","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-01-02","note":"","tags":\#(tags)}}"#
                let answer = try PushResult(json: client.result("push", #"{"mutations":[\#(put)]}"#))
                guard case .rejected(let rejection) = answer.results.first?.status else {
                    Issue.record("\(tags) was not rejected: \(answer)")
                    continue
                }
                #expect(rejection.reason == "invalid_tags" && rejection.field == "tags", "\(tags): \(rejection)")
            }
            // Sent unsorted and twice, stored sorted and once.
            let id = UUID()
            let put = #"{"mutationId":7,"type":"put","id":"\#(id.uuidString)","baseVersion":0,"fields":{"amount":1250,"category":"food","date":"2026-01-02","note":"","tags":["work","trip","work"]}}"#
            let answer = try PushResult(json: client.result("push", #"{"mutations":[\#(put)]}"#))
            #expect(answer.results.first?.status == .applied(version: 1, seq: 1), "\(answer)")
            let records = try client.pullAll()
            #expect(records.first?.expense.tags == ["trip", "work"])
        }
    }
}
