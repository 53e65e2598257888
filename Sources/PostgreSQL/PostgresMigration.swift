/// One forward-only schema migration (``PostgresConnection/migrate(_:table:)``): its SQL and, when the SQL cannot
/// write a conversion itself (rows packed by a codec of the program), a Swift step run after it in the same
/// transaction, so the new version is recorded only with both done. A string literal is a migration of SQL alone.
public struct PostgresMigration: Sendable, ExpressibleByStringLiteral {
    public let sql: String
    public let step: (@Sendable (PostgresConnection) throws -> Void)?

    public init(_ sql: String, step: (@Sendable (PostgresConnection) throws -> Void)? = nil) {
        self.sql = sql
        self.step = step
    }

    public init(stringLiteral sql: String) {
        self.init(sql)
    }
}
