import TestSupport
import Foundation
import Testing

@Suite struct ExpenseImportExportTests {
    @Test func aBadRowImportsNothingAndNamesItsLine() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            try expense.succeed(["add", "1", "existing", "--date", "2026-01-01"])
            let file = expense.directory + "/in.csv"
            try "date,amount,currency,category,note\r\n2026-01-02,3.50,USD,food,\"two\nlines\"\r\n2026-01-03,12.505,USD,food,\r\n"
                .write(toFile: file, atomically: true, encoding: .utf8)
            let result = try expense.run(["import", file])
            #expect(result.status == 65)
            #expect(result.stdout == "")
            #expect(result.stderr == "Error: nothing imported: 1 bad row\n  line 4: invalid_amount: invalid amount: USD has 2 decimal places, '12.505' has 3\n")
            let listed = try expense.succeed(["list", "--json"])
            #expect(listed.contains("existing") && !listed.contains("\"food\""))
        }
    }

    @Test func exportThenImportRoundTrips() async throws {
        try await onOwnThread {
            let source = try ExpenseProcess()
            try source.succeed(["add", "12.50", "food", "--date", "2026-01-02", "--note", "say \"hi\", then\nleave"])
            try source.succeed(["add", "1.250", "fuel", "--currency", "BHD", "--date", "2026-01-03"])
            let file = source.directory + "/out.csv"
            try source.succeed(["export", "--format", "csv", "--output", file])
            let exported = try String(contentsOfFile: file, encoding: .utf8)
            let ids = ExpenseRoundTripTests.ids(try source.succeed(["list", "--json"]))
            #expect(ids.count == 2)
            #expect(exported == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(ids[0]),2026-01-02,12.50,USD,food,\"say \"\"hi\"\", then\nleave\",,,,,,\n"
                    + "\(ids[1]),2026-01-03,1.250,BHD,fuel,,,,,,,\n")

            let target = try ExpenseProcess()
            let dry = try target.run(["import", "--dry-run", file])
            #expect(dry.status == 0 && dry.stdout == "2 new, 0 already present, 0 differing\n" && dry.stderr == "Dry run: nothing stored.\n")
            #expect(try target.succeed(["list", "--json"]) == "[]\n")
            try target.succeed(["import", file])
            #expect(try target.succeed(["export"]) == exported)
            let json = try target.succeed(["export", "--format", "json"])
            #expect(json.contains("\"amount\" : 1250") && json.contains("\"currency\" : \"BHD\""))
            #expect(try target.run(["export", "--format", "xml"]).status == 64)
        }
    }

    @Test func importFromStandardInput() async throws {
        try await onOwnThread {
            let expense = try ExpenseProcess()
            let result = try expense.run(["import", "-"], stdin: "date,amount,currency,category,note\n2026-05-01,2,,tea,\n")
            #expect(result.status == 0, "\(result)")
            let id = ExpenseRoundTripTests.ids(try expense.succeed(["list", "--json"])).first ?? ""
            #expect(try expense.succeed(["export"]) == "id,date,amount,currency,category,note,paid_by,split,charged,tags,parts,source\n\(id),2026-05-01,2.00,USD,tea,,,,,,,\n")
            #expect(try expense.run(["import", expense.directory + "/missing.csv"]).status == 74)
        }
    }
}
