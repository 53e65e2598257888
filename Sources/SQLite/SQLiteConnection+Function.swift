import CSQLite

extension SQLiteConnection {
    /// Defines, on this connection only, the deterministic SQL function `name(text)` returning the blob `transform`
    /// makes of the text's UTF-8 bytes. The statement fails (SQLITE_ERROR, `name: <message>`) when the argument is
    /// not text or `transform` returns `nil`, so a migration using it rolls back instead of storing a wrong value.
    ///
    /// For conversions SQL cannot spell (SQLite 3.40 has no `unhex`); the client cache's migration 10 turns its
    /// text ids into blobs with one.
    public func defineTextToBlobFunction(_ name: String, failure message: String,
                                         _ transform: @escaping (UnsafeBufferPointer<UInt8>) -> [UInt8]?) throws {
        let function = TextToBlobFunction(message: "\(name): \(message)", transform: transform)
        let result = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, Unmanaged.passRetained(function).toOpaque(),
            { context, _, arguments in
                // The user data is the function object retained above, released by the destructor below.
                guard let context, let data = sqlite3_user_data(context) else { return }
                let function = Unmanaged<TextToBlobFunction>.fromOpaque(data).takeUnretainedValue()
                function.call(context, argument: arguments?[0])
            },
            nil, nil,
            { data in
                guard let data else { return }
                Unmanaged<TextToBlobFunction>.fromOpaque(data).release()
            })
        guard result == SQLITE_OK else { throw error(result, sql: "sqlite3_create_function_v2(\(name))") }
    }
}

/// What ``SQLiteConnection/defineTextToBlobFunction(_:failure:_:)`` registers: owned by SQLite (retained at
/// registration, released when the function is replaced or the connection closes) and called on the
/// connection's thread only.
private final class TextToBlobFunction {
    let message: String
    let transform: (UnsafeBufferPointer<UInt8>) -> [UInt8]?

    init(message: String, transform: @escaping (UnsafeBufferPointer<UInt8>) -> [UInt8]?) {
        self.message = message
        self.transform = transform
    }

    func call(_ context: OpaquePointer, argument: OpaquePointer?) {
        guard let argument, sqlite3_value_type(argument) == SQLITE_TEXT, let text = sqlite3_value_text(argument),
              let bytes = transform(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument)))) else {
            sqlite3_result_error(context, message, -1)
            return
        }
        bytes.withUnsafeBytes { raw in
            sqlite3_result_blob64(context, raw.baseAddress, UInt64(raw.count), SQLiteStatement.transient)
        }
    }
}
