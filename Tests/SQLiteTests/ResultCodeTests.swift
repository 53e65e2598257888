import SQLite
import Testing

@Suite struct ResultCodeTests {
    @Test func aPrimaryPatternMatchesItsExtendedCodesAndAnExtendedPatternOnlyItself() {
        #expect(SQLiteError.ResultCode.constraint ~= .constraintUnique)
        #expect(SQLiteError.ResultCode.constraint ~= .constraint)
        #expect(!(SQLiteError.ResultCode.constraintUnique ~= .constraintPrimaryKey))
        #expect(!(SQLiteError.ResultCode.constraintUnique ~= .constraint))
        #expect(!(SQLiteError.ResultCode.ioerr ~= .full))
        #expect(SQLiteError.ResultCode.ioerrFsync.primaryResultCode == .ioerr)
        #expect(SQLiteError.ResultCode.ioerr.isPrimary && !SQLiteError.ResultCode.ioerrFsync.isPrimary)
    }

    @Test func aThrownErrorIsCaughtByItsPrimaryCode() {
        var caught = false
        do {
            throw SQLiteError(code: .ioerrFsync, message: "fsync failed", path: ":memory:")
        } catch SQLiteError.ResultCode.ioerr {
            caught = true
        } catch {
            Issue.record("not caught by its primary code: \(error)")
        }
        #expect(caught)
    }

    @Test func theDescriptionShowsSQLitesNumber() {
        #expect(SQLiteError(code: .ioerrFsync, message: "m", path: "p").description == "SQLite error 1034 on p: m")
    }

    @Test func anIntegerOverflowOfSumIsNamed() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(v INTEGER); INSERT INTO t VALUES (9223372036854775807), (1)")
        let error = #expect(throws: SQLiteError.self) {
            try connection.prepare("SELECT sum(v) FROM t").first([]) { $0.int64(0) }
        }
        #expect(error?.isIntegerOverflow == true, "\(String(describing: error))")
        #expect(SQLiteError(code: .error, message: "no such table: t", path: "p").isIntegerOverflow == false)
    }
}
