import ExpenseCore
import Testing
@testable import ExpenseServer

/// The `field_versions` column's text (``FieldVersions/columnText``): every combination reads back, all at 1 is the
/// empty text, the trailing groups at 1 are left out, and any text this program does not write is refused.
struct FieldVersionsColumnTests {
    @Test func everyCombinationReadsBack() throws {
        let groups = ExpenseField.conflictGroups.count
        // Each group at 1, at 2 or far above: 3^7 combinations.
        let choices: [Int64] = [1, 2, 900_719_925_474_099]
        var combination = Array(repeating: 0, count: groups)
        while true {
            var versions = FieldVersions(all: 1)
            for index in 0..<groups { versions.groups[index] = choices[combination[index]] }
            let text = versions.columnText
            #expect(FieldVersions(columnText: text) == versions, "\(text)")
            #expect(!text.hasSuffix(",1") && text != "1", "\(text): a trailing 1 is left out")
            guard let next = combination.firstIndex(where: { $0 < choices.count - 1 }) else { break }
            for index in 0..<next { combination[index] = 0 }
            combination[next] += 1
        }
    }

    @Test func allAtOneIsTheEmptyTextAndOneGroupListsThroughIt() {
        #expect(FieldVersions(all: 1).columnText == "")
        var versions = FieldVersions(all: 1)
        versions[.note] = 4
        #expect(versions.columnText == "1,1,1,4")
        versions[.currency] = 5
        #expect(versions.columnText == "5,1,1,4")
        #expect(FieldVersions(all: 3).columnText == "3,3,3,3,3,3,3")
        #expect(FieldVersions(columnText: "") == FieldVersions(all: 1))
        // A row written with fewer groups (or by migration 17, which lists all seven) reads the same.
        #expect(FieldVersions(columnText: "5,1,1,4,1,1,1") == versions)
    }

    /// The stored texts' order: a group added later goes after these, where a row's text that does not reach it
    /// reads 1.
    @Test func theOrderOfTheStoredTextsIsTodays() {
        #expect(ExpenseField.conflictGroups.prefix(7).map(\.conflictGroupName)
                == ["money", "category", "date", "note", "paidBy", "tags", "source"])
        #expect(FieldVersions.separateColumns == ExpenseField.conflictGroups.prefix(7).map { $0.conflictGroupName + "_version" })
    }

    @Test(arguments: ["0", "1,0", ",", "1,", ",1", "1,,2", "a", "1 ", " 1", "-1", "+1", "1,1,1,1,1,1,1,1", "1000000000000000000",
                      "\u{FF11}", "1;2"])
    func aTextThisProgramDoesNotWriteIsRefused(text: String) {
        #expect(FieldVersions(columnText: text) == nil)
    }
}
