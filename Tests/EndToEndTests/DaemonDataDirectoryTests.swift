import TestSupport
import Foundation
import Testing

/// What `expensed` may create in its data directory, run as a real process: only what was asked for, and
/// nothing before `serve` knows it can listen.
@Suite struct DaemonDataDirectoryTests {
    private static let daemon = ExpenseProcess.daemonExecutable

    private static func files(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// A mistyped `--data` must not become a new data directory with a `default` ledger in it.
    @Test func ledgerListOfAMissingDirectoryCreatesNothing() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let typo = scratch.directory + "/TYPO"
            let result = try scratch.run(["ledger", "list", "--data", typo], executable: Self.daemon)
            #expect(result.status == 74, "\(result)")
            #expect(result.stdout == "")
            #expect(result.stderr.contains(typo) && result.stderr.contains("no such directory"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: typo), "ledger list created \(typo)")

            // An empty existing directory is listed as empty, and stays empty.
            let empty = scratch.directory + "/empty"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
            let listed = try scratch.run(["ledger", "list", "--data", empty, "--json"], executable: Self.daemon)
            #expect(listed.status == 0 && listed.stdout == "[]\n", "\(listed)")
            #expect(Self.files(empty) == [])
        }
    }

    /// `ledger add work` on a fresh directory makes the directory and `work`, not also `default`.
    @Test func ledgerAddOnAFreshDirectoryCreatesOnlyThatLedger() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/fresh/data"
            let added = try scratch.run(["ledger", "add", "work", "--currency", "EUR", "--data", data], executable: Self.daemon)
            #expect(added.status == 0, "\(added)")
            #expect(Self.files(data) == ["work.sqlite", "work.token"])
            let mode = try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            let list = try scratch.run(["ledger", "list", "--data", data], executable: Self.daemon)
            #expect(list.stdout == "work EUR\n", "\(list)")

            // A daemon started on it serves `work` and makes no `default` either: the directory has a ledger.
            let daemon = try DaemonProcess.serve(data: data, scratch: scratch.directory)
            #expect(daemon.stop().status == 0)
            #expect(Self.files(data).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
                    == ["expensed.lock", "work.sqlite", "work.token"])
        }
    }

    /// `ledger add` touches only the ledger it names: another ledger's damaged file does not stop it (it used
    /// to open, and so check, every ledger in the directory); `ledger list` reads each file's currency and names
    /// the damaged one.
    @Test func ledgerAddOpensNoOtherLedger() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let data = scratch.directory + "/data"
            #expect(try scratch.run(["ledger", "add", "good", "--data", data], executable: Self.daemon).status == 0)
            let garbage = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
            try Data(garbage).write(to: URL(fileURLWithPath: data + "/broken.sqlite"))

            let added = try scratch.run(["ledger", "add", "new", "--currency", "JPY", "--data", data], executable: Self.daemon)
            #expect(added.status == 0 && added.stderr == "", "\(added)")
            #expect(Self.files(data).contains("new.token"))

            let list = try scratch.run(["ledger", "list", "--data", data], executable: Self.daemon)
            #expect(list.status == 74 && list.stderr.contains("broken.sqlite") && list.stderr.contains("damaged"), "\(list)")
            // Names alone open no file: the damaged one is listed like any other.
            let names = try scratch.run(["ledger", "list", "--data", data, "--names"], executable: Self.daemon)
            #expect(names.status == 0 && names.stdout == "broken\ngood\nnew\n", "\(names)")
            let namesJSON = try scratch.run(["ledger", "list", "--data", data, "--names", "--json"], executable: Self.daemon)
            #expect(namesJSON.status == 0 && namesJSON.stdout.contains("\"name\" : \"broken\"")
                    && !namesJSON.stdout.contains("currency"), "\(namesJSON)")
            #expect(try scratch.run(["ledger", "list", "--data", data + "/TYPO", "--names"], executable: Self.daemon).status == 74)
            try FileManager.default.removeItem(atPath: data + "/broken.sqlite")
            let listed = try scratch.run(["ledger", "list", "--data", data, "--json"], executable: Self.daemon)
            #expect(listed.status == 0, "\(listed)")
            #expect(listed.stdout.contains("\"name\" : \"new\"") && listed.stdout.contains("\"currency\" : \"JPY\""), "\(listed)")
        }
    }

    /// `serve` on an address it cannot listen on leaves a fresh data directory uncreated.
    @Test func serveThatCannotListenCreatesNothing() async throws {
        try await onOwnThread {
            let scratch = try ExpenseProcess()
            let first = try DaemonProcess.serve(data: scratch.directory + "/one", scratch: scratch.directory)
            let taken = try first.address().description
            let fresh = scratch.directory + "/two"
            let second = try DaemonProcess(["serve", "--listen", taken, "--data", fresh], scratch: scratch.directory)
            #expect(second.firstLine == nil)
            #expect(second.waitForExit().status == 69, "\(second.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fresh), "serve created \(fresh) before it could listen")
            #expect(!second.stderr.contains("created ledger"), "\(second.stderr)")
            #expect(first.stop().status == 0)

            // Once it can listen, a fresh directory gets `default` as before.
            let third = try DaemonProcess.serve(data: fresh, scratch: scratch.directory)
            #expect(third.stderr.contains(fresh + "/default.token"), "\(third.stderr)")
            #expect(third.stop().status == 0)
            #expect(FileManager.default.fileExists(atPath: fresh + "/default.sqlite"))
        }
    }
}
