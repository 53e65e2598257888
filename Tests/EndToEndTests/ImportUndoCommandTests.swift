import Foundation
import TestSupport
import Testing

/// `expense import` then `expense undo --last`: the whole import goes, as one command.
@Suite struct ImportUndoCommandTests {
    @Test func undoLastAfterImportRemovesEveryImportedRow() async throws {
        try await onOwnThread {
            let ann = try ExpenseProcess()
            try ann.succeed(["add", "3", "before"])
            let file = ann.directory + "/bank.csv"
            try "date,amount,currency,category,note\n2026-01-01,1,USD,bank,a\n2026-01-02,2,USD,bank,b\n2026-01-03,3,USD,bank,c\n"
                .write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try ann.succeed(["import", file]) == "3 new, 0 already present, 0 differing\n")
            let undone = try ann.run(["undo", "--last"])
            #expect(undone.status == 0 && undone.stdout == "deleted 3\n" && undone.stderr.contains("(3 rows)"), "\(undone)")
            let listed = try ann.succeed(["list", "--json"])
            #expect(!listed.contains("bank") && listed.contains("before"), "\(listed)")
            // The next undo --last is the add before the import.
            try ann.succeed(["undo", "--last"])
            #expect(!(try ann.succeed(["list", "--json"])).contains("before"))
        }
    }
}
